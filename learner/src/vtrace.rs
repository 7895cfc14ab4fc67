//! V-trace with R-NaD's reward transformation, for one player over one
//! trajectory, outside autograd: everything it computes is a target.
//!
//! Walking backwards, a carry `(R, R_unc, V_next, VT_next, IS)` starts at
//! `(0, 0, 0, 0, 1)` and resets on invalid (padding) steps. With
//! `s_t = +1` at the player's own steps and −1 otherwise,
//! `cs_t = π_t(a_t)/μ_t(a_t)` and the entropy term
//! `e_t = −η·s_t·Σ_a π_t(a)·log_reg_t(a)`:
//!
//! * at the player's own step, `R_unc ← r_t + R_unc + e_t`,
//!   `vtarget_t = V_t + min(ρ̄, cs·IS)·(R_unc + V_next − V_t) + min(1, cs·IS)·(VT_next − V_next)`,
//!   `q_t(a) = V_t − η·s_t·log_reg_t(a) + 1[a = a_t]/μ_t(a_t)·(r_t + R + IS·VT_next − V_t)`,
//!   then the carry becomes `(0, 0, V_t, vtarget_t, 1)`;
//! * at another player's step the carry becomes
//!   `(e_t + cs·(r_t + R), r_t + R_unc + e_t, V_next, VT_next, cs·IS)`.
//!
//! (c̄ = 1, λ = 1, γ = 1, as in the reference; ρ̄ is `rnad.rho_vtrace`,
//! which the reference leaves at ∞.)

/// One trajectory's steps as v-trace reads them (`T` steps; each step's
/// legal actions a run of cells, [`rnad_net::LegalCells`]).
#[derive(Clone, Copy, Debug)]
pub struct VTraceInput<'a> {
    /// Whether each step is a real decision (false on padding).
    pub valid: &'a [bool],
    /// The acting player at each step.
    pub player: &'a [u8],
    /// Where each step's cells start in `policy` and `log_reg`, then
    /// where the last step's end (`T + 1` entries).
    pub cells: &'a [usize],
    /// The cell of the action taken at each step.
    pub taken: &'a [usize],
    /// `μ_t(a_t)`: the behaviour probability of the action taken.
    pub behaviour: &'a [f32],
    /// The reward the evaluated player received after each step.
    pub reward: &'a [f32],
    /// The target network's value `V_t` at each step.
    pub value: &'a [f32],
    /// `π_t(a)` at each cell.
    pub policy: &'a [f32],
    /// `log_reg_t(a)` at each cell.
    pub log_reg: &'a [f32],
}

/// Writes value targets and q-values for `player`'s own valid steps into
/// `value_target[t]` and `q` at step `t`'s cells; other entries are left
/// alone.
/// `rho_bar` clips the importance weight of the value targets' own step.
pub fn v_trace(
    input: &VTraceInput,
    player: u8,
    eta: f64,
    rho_bar: f64,
    value_target: &mut [f32],
    q: &mut [f32],
) {
    let (mut r, mut r_unc, mut v_next, mut vt_next, mut is) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64, 1.0f64);
    for t in (0..input.valid.len()).rev() {
        if !input.valid[t] {
            (r, r_unc, v_next, vt_next, is) = (0.0, 0.0, 0.0, 0.0, 1.0);
            continue;
        }
        let row = input.cells[t]..input.cells[t + 1];
        let pi = &input.policy[row.clone()];
        let log_reg = &input.log_reg[row.clone()];
        let taken = input.taken[t] - row.start;
        let mu = f64::from(input.behaviour[t]);
        let cs = f64::from(pi[taken]) / mu;
        let own = input.player[t] == player;
        let s = if own { 1.0 } else { -1.0 };
        let reg_entropy: f64 = pi
            .iter()
            .zip(log_reg)
            .map(|(&p, &l)| f64::from(p) * f64::from(l))
            .sum();
        let e = -eta * s * reg_entropy;
        let reward = f64::from(input.reward[t]);
        if own {
            let v = f64::from(input.value[t]);
            let r_unc_own = reward + r_unc + e;
            let target = v
                + (cs * is).min(rho_bar) * (r_unc_own + v_next - v)
                + (cs * is).min(1.0) * (vt_next - v_next);
            let correction = (reward + r + is * vt_next - v) / mu;
            for (k, (out, &l)) in q[row].iter_mut().zip(log_reg).enumerate() {
                let bonus = if k == taken { correction } else { 0.0 };
                *out = (v - eta * s * f64::from(l) + bonus) as f32;
            }
            value_target[t] = target as f32;
            (r, r_unc, v_next, vt_next, is) = (0.0, 0.0, v, target, 1.0);
        } else {
            (r, r_unc, is) = (e + cs * (reward + r), reward + r_unc + e, cs * is);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two actions, η = 0.5. Steps: t0 player 0, t1 player 1, t2 player 0
    /// (game ends, player 0 gets +2, player 1 −2), t3 padding.
    ///
    /// π rows: [0.6, 0.4], [0.25, 0.75], [0.5, 0.5]; actions 0, 1, 1;
    /// μ(a_t): 0.5, 0.5, 0.25 → cs = 1.2, 1.5, 2.
    /// log_reg rows: [0.1, −0.2], [0.3, 0.1], [0, 0.4].
    /// Σ π·log_reg: 0.06 − 0.08 = −0.02; 0.075 + 0.075 = 0.15; 0.2.
    /// V (target net): 0.3, −0.1, 0.5.
    fn input<'a>(reward: &'a [f32]) -> VTraceInput<'a> {
        VTraceInput {
            valid: &[true, true, true, false],
            player: &[0, 1, 0, 0],
            cells: &[0, 2, 4, 6, 8],
            taken: &[0, 3, 5, 6],
            behaviour: &[0.5, 0.5, 0.25, 1.0],
            reward,
            value: &[0.3, -0.1, 0.5, 9.0],
            policy: &[0.6, 0.4, 0.25, 0.75, 0.5, 0.5, 0.5, 0.5],
            log_reg: &[0.1, -0.2, 0.3, 0.1, 0.0, 0.4, 7.0, 7.0],
        }
    }

    fn close(a: f32, b: f64) {
        assert!((f64::from(a) - b).abs() < 1e-5, "{a} vs {b}");
    }

    #[test]
    fn player_zero_by_hand() {
        let mut vt = [f32::NAN; 4];
        let mut q = [f32::NAN; 8];
        v_trace(
            &input(&[0.0, 0.0, 2.0, 0.0]),
            0,
            0.5,
            f64::INFINITY,
            &mut vt,
            &mut q,
        );

        // t3 padding: carry (0,0,0,0,1).
        // t2 own: e = −0.5·0.2 = −0.1; R_unc = 2 + 0 − 0.1 = 1.9;
        //   vtarget = 0.5 + 2·1·(1.9 + 0 − 0.5) + 1·(0 − 0) = 3.3;
        //   q(0) = 0.5 − 0.5·0 = 0.5; q(1) = 0.5 − 0.2 + (2 + 0 + 0 − 0.5)/0.25 = 6.3.
        close(vt[2], 3.3);
        close(q[4], 0.5);
        close(q[5], 6.3);
        // carry (0, 0, 0.5, 3.3, 1).
        // t1 other: s = −1, e = +0.5·0.15 = 0.075, cs = 1.5;
        //   carry (0.075 + 1.5·(0 + 0), 0 + 0 + 0.075, 0.5, 3.3, 1.5).
        // t0 own: e = −0.5·(−0.02) = 0.01; R_unc = 0 + 0.075 + 0.01 = 0.085; cs = 1.2;
        //   cs·IS = 1.8: vtarget = 0.3 + 1.8·(0.085 + 0.5 − 0.3) + 1·(3.3 − 0.5) = 3.613;
        //   q(0) = 0.3 − 0.05 + (0 + 0.075 + 1.5·3.3 − 0.3)/0.5 = 9.7;
        //   q(1) = 0.3 + 0.1 = 0.4.
        close(vt[0], 3.613);
        close(q[0], 9.7);
        close(q[1], 0.4);
        // Other player's step and padding untouched.
        assert!(vt[1].is_nan() && vt[3].is_nan());
        assert!(q[2].is_nan() && q[3].is_nan() && q[6].is_nan() && q[7].is_nan());
    }

    #[test]
    fn player_one_by_hand() {
        let mut vt = [f32::NAN; 4];
        let mut q = [f32::NAN; 8];
        v_trace(
            &input(&[0.0, 0.0, -2.0, 0.0]),
            1,
            0.5,
            f64::INFINITY,
            &mut vt,
            &mut q,
        );
        // t2 other (player 0): s = −1, e = 0.5·0.2 = 0.1, cs = 2;
        //   carry (0.1 + 2·(−2 + 0), −2 + 0 + 0.1, 0, 0, 2) = (−3.9, −1.9, 0, 0, 2).
        // t1 own: e = −0.5·0.15 = −0.075; R_unc = 0 − 1.9 − 0.075 = −1.975; cs = 1.5, cs·IS = 3;
        //   vtarget = −0.1 + 3·(−1.975 + 0 + 0.1) + 1·(0 − 0) = −5.725;
        //   q(0) = −0.1 − 0.5·0.3 = −0.25;
        //   q(1) = −0.1 − 0.05 + (0 − 3.9 + 2·0 + 0.1)/0.5 = −7.75.
        close(vt[1], -5.725);
        close(q[2], -0.25);
        close(q[3], -7.75);
        // t0 (player 0) produces nothing for player 1.
        assert!(vt[0].is_nan() && q[0].is_nan() && q[1].is_nan());
    }

    /// `player_zero_by_hand` with ρ̄ = 1.5: only the weight of the own
    /// step's error is clipped (t2: cs·IS = 2; t0: 1.8); the q-values and
    /// the trace (c̄ = 1) are as before.
    #[test]
    fn rho_bar_clips_the_value_targets_importance_weight_only() {
        let mut vt = [f32::NAN; 4];
        let mut q = [f32::NAN; 8];
        v_trace(&input(&[0.0, 0.0, 2.0, 0.0]), 0, 0.5, 1.5, &mut vt, &mut q);
        // t2: vtarget = 0.5 + 1.5·(1.9 + 0 − 0.5) + 1·(0 − 0) = 2.6.
        close(vt[2], 2.6);
        close(q[5], 6.3);
        // t0: vtarget = 0.3 + 1.5·(0.085 + 0.5 − 0.3) + 1·(2.6 − 0.5) = 2.8275;
        //   q(0) = 0.3 − 0.05 + (0 + 0.075 + 1.5·2.6 − 0.3)/0.5 = 7.6.
        close(vt[0], 2.8275);
        close(q[0], 7.6);
        close(q[1], 0.4);
    }

    #[test]
    fn padding_resets_the_carry() {
        // The same game twice in one buffer, separated by padding: the
        // second copy must give the same targets as the first.
        let mut vt = [f32::NAN; 7];
        let mut q = [f32::NAN; 14];
        let doubled = VTraceInput {
            valid: &[true, true, true, false, true, true, true],
            player: &[0, 1, 0, 0, 0, 1, 0],
            cells: &[0, 2, 4, 6, 8, 10, 12, 14],
            taken: &[0, 3, 5, 6, 8, 11, 13],
            behaviour: &[0.5, 0.5, 0.25, 1.0, 0.5, 0.5, 0.25],
            reward: &[0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0],
            value: &[0.3, -0.1, 0.5, 9.0, 0.3, -0.1, 0.5],
            policy: &[
                0.6, 0.4, 0.25, 0.75, 0.5, 0.5, 0.5, 0.5, 0.6, 0.4, 0.25, 0.75, 0.5, 0.5,
            ],
            log_reg: &[
                0.1, -0.2, 0.3, 0.1, 0.0, 0.4, 7.0, 7.0, 0.1, -0.2, 0.3, 0.1, 0.0, 0.4,
            ],
        };
        v_trace(&doubled, 0, 0.5, f64::INFINITY, &mut vt, &mut q);
        close(vt[0], 3.613);
        close(vt[4], 3.613);
        close(vt[6], 3.3);
        close(q[8], 9.7);
    }
}
