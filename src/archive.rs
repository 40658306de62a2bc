//! Host-side tar archives and crash-safe files: the reader that refuses tar
//! slips ([`tree`]) and the atomic-write and lock primitives ([`atomic`])
//! the generation store and the mindlog are built on.
//!
//! All of it blocks (file I/O, compression); call it from
//! `tokio::task::spawn_blocking` in async code.

pub mod atomic;
pub mod names;
pub mod tree;

pub use tree::{ArchiveEntry, ArchiveTree, EntryKind, Refused};
