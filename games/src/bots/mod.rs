//! Players that follow fixed rules, apart from the games they play: the
//! rule-based players of Kuhn, Leduc and Liar's Dice ([`rules`]), seed
//! 004's poker baselines ([`poker_baselines`]) and the UECda devkit's
//! default Daihinmin player ([`uecda_default`]). A game names the rule
//! player it offers in its [capabilities](crate::capabilities) by a
//! [`RuleBot`].

pub mod poker_baselines;
pub mod rules;
pub mod uecda_default;

/// A rule-based player, as a game's capabilities name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleBot {
    /// Kuhn poker's rules, a table over the public tree ([`rules`]).
    Kuhn,
    /// Leduc poker's rules, a table over the public tree ([`rules`]).
    Leduc,
    /// Liar's Dice's rules, a table over the public tree ([`rules`]).
    LiarsDice,
    /// The UECda devkit's default Daihinmin player, deciding state by
    /// state ([`uecda_default::DefaultPlayer`]).
    UecdaDefault,
}

impl RuleBot {
    /// Whether it is a table over the game's public tree (else it decides
    /// state by state).
    pub fn is_tabular(self) -> bool {
        !matches!(self, RuleBot::UecdaDefault)
    }
}
