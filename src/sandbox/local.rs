//! The local backend: the in-process shell. OWNER: runtime helper.
