//! The docker backend: one container per sandbox through bollard. OWNER: docker helper.
