//! Random bits for ids that name things but guard nothing (session and
//! local sandbox ids), taken cheaply at start-up. Ids that act as
//! credentials (the server's session handles) use `rand` instead.

use std::sync::atomic::{AtomicU64, Ordering};

/// 32 unpredictable bits for ids (not secrets): std's per-process random
/// hash keys, which the first `HashMap` already seeded from the OS.
/// `rand::random` would set up a ChaCha generator first, whose CPU feature
/// probes (CPUID, slow under a hypervisor) cost a visible part of a
/// `sandkeep run` start.
pub(crate) fn cheap_random_u32() -> u32 {
    use std::hash::BuildHasher;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let h = std::hash::RandomState::new().hash_one((n, nanos));
    (h ^ (h >> 32)) as u32
}
