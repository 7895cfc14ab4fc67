//! How many threads a matrix product may use.
//!
//! candle splits each CPU matrix product over rayon's pool, sized by
//! `RAYON_NUM_THREADS` (default: every core). For this project's networks
//! (hidden layers of a few hundred units, batches of a few hundred rows)
//! splitting costs more than it saves, and in a local run the learner,
//! every actor thread and the evaluation would all split their products
//! over the same cores at once. So every binary makes products
//! single-threaded unless the user has set `RAYON_NUM_THREADS`
//! (`docs/results/leduc-speed/` has the measurements).

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
