//! The R-NaD learner: the update (v-trace, NeuRD, Adam, target EMA, entropy
//! schedule, two-stage averaging), checkpoints, exact evaluation of the four
//! policy kinds, and the all-in-one local run.

pub mod adam;
pub mod averaging;
pub mod batch;
pub mod bench;
pub mod checkpoint;
pub mod error;
pub mod learning_rate;
pub mod local;
pub mod loss;
pub mod metrics;
pub mod resume;
pub mod rnad;
pub mod schedule;
pub mod serve;
pub mod service;
pub mod sweep;
pub mod training;
pub mod training_log;
pub mod vtrace;
