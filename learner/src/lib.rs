//! The R-NaD learner: the update (v-trace, NeuRD, Adam, target EMA, entropy
//! schedule, two-stage averaging), its checkpoints, the training loop and
//! the tarpc service actors feed it through. What plays and what judges
//! reach it from outside: a lockstep actor through
//! [`training::Lockstep`], an evaluator through [`evaluate::Evaluate`]; the
//! `rnad-learner` binary (`learner/cli`) wires them.

pub mod adam;
pub mod average_network;
pub mod averaging;
pub mod batch;
pub mod checkpoint;
pub mod error;
pub mod evaluate;
pub mod guard;
pub mod importance;
pub mod learning_rate;
pub mod loss;
pub mod metrics;
pub mod neurd;
pub mod reservoir;
pub mod resume;
pub mod rnad;

pub mod serve;
pub mod service;
pub mod training;
pub mod training_log;
pub mod vtrace;
