//! How the binaries use the CPU: how many threads a matrix product may use,
//! and which heap allocator they all share (at the end).
//!
//! candle splits each CPU matrix product over rayon's pool, sized by
//! `RAYON_NUM_THREADS` (default: every core). For this project's networks
//! (two hidden layers of 128 or 256 units, batches of a few hundred rows)
//! splitting costs more than it saves, and in a local run the learner,
//! every actor thread and the evaluation all split their products over the
//! same cores at once. Measured with `rnad-learner bench` on the 2-core
//! development machine, one thread per product instead of two: learner
//! alone 127 → 203 steps/s, one actor 190k → 567k decisions/s, the whole
//! local run 71 → 104 steps/s, system time 19.5 s → 6.2 s (default Leduc
//! config); with 256-unit layers the learner alone loses 12% but the local
//! run gains 83%. So every binary makes products single-threaded unless
//! the user has set `RAYON_NUM_THREADS`.

/// The environment variable candle and rayon read.
pub const THREADS_VAR: &str = "RAYON_NUM_THREADS";

/// Sets `RAYON_NUM_THREADS=1` unless it is set already. Call first thing
/// in `main`, before any thread starts (the environment is process-wide).
pub fn one_thread_per_product_unless_set() {
    if std::env::var_os(THREADS_VAR).is_none() {
        std::env::set_var(THREADS_VAR, "1");
    }
}

/// The threads each CPU matrix product uses now.
pub fn threads_per_product() -> usize {
    candle_core::utils::get_num_threads()
}

/// Every binary's heap: mimalloc instead of the system allocator.
///
/// candle allocates a fresh buffer for every tensor operation, many of
/// them hundreds of kilobytes, and frees it soon after. glibc's malloc
/// serves such blocks with `mmap` and returns them with `munmap`, so the
/// learner faulted its pages in again at every step and every `munmap`
/// flushed the TLBs of the process's other threads; allocation and freeing
/// were a fifth of a local run's profile and system time a tenth of user
/// time. mimalloc keeps freed pages for reuse: with it `rnad-learner bench`
/// on the default Leduc config measures the local run at 207 steps/s
/// instead of 152, and system time falls to a fifth.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
