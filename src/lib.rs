//! # sandkeep
//!
//! A sandbox runtime for AI agents. (Runtime under construction.)

pub mod sandbox;
