//! The divergence guard's checks: whether a step's loss, gradients, new
//! parameters and new outputs are all finite. A step that fails them is
//! never applied, so nothing non-finite is ever published, checkpointed or
//! evaluated; the training loop counts such steps and rolls back when they
//! keep coming. Tensors are checked with
//! [`rnad_net::first_nonfinite`].

/// What made a step unusable: the step it was and the first value that was
/// not finite, named.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("step {step}: {what} is not finite")]
pub struct NonFinite {
    /// The learner step the update was for.
    pub step: u64,
    /// Which value (`the value loss`, `θ's gradient of torso.0.weight`,
    /// `θ_target's policy.bias after the update`, `θ's logits on the
    /// batch's states`).
    pub what: String,
}
