//! The public tree of a game: every sequence of public moves once, with the
//! players' private hands kept as vectors rather than as separate
//! histories.
//!
//! In every game here the deal is the only private information and every
//! later move is public, so a history is a (deal, public node) pair. Exact
//! algorithms walk the public nodes once and carry, at each, one number per
//! hand of each player (a reach probability, a counterfactual value), the
//! way poker solvers do; the deal's chance probabilities and the
//! compatibility of hands (no two players hold one card, no private card
//! shows up on the board) are accounted for where the hands meet, at the
//! terminal nodes. A game of `H` hands per player and `P` public nodes costs
//! `O(P·H)` memory instead of one boxed state per history.
//!
//! An information state is a (decision node, hand of the acting player)
//! pair: the acting player's private hand and the public history are
//! exactly what its information-state string says. Its index is
//! `first_info + hand` of its node, and its action `k`'s policy slot is
//! `first_slot + hand · actions + k`: dense arrays, including the (few)
//! pairs no history reaches, such as a hand equal to the board card, which
//! [`PublicTree::is_possible`] tells apart. Strings and tensors are made on
//! demand by replaying a representative history of the game.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use crate::{Action, Game, GameSpec, Hands, Payoff, State, Turn};

/// What happens at a public node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// A player acts; the index is into [`PublicTree::decisions`].
    Decision(u32),
    /// A public card is drawn: child `k` shows card
    /// [`PublicTree::action_from_parent`] of that child.
    Chance,
    /// The game is over; the index is into [`PublicTree::payoffs`].
    Terminal(u32),
}

/// A public node where a player acts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The node.
    pub node: u32,
    /// The acting player.
    pub player: usize,
    /// Legal actions, increasing (child `k` of the node follows action `k`).
    pub legal_actions: Vec<Action>,
    /// Index of the information state of hand 0 here.
    pub first_info: usize,
    /// Slot of hand 0's first action here.
    pub first_slot: usize,
}

impl Decision {
    /// The information state of `hand` here.
    pub fn info(&self, hand: usize) -> usize {
        self.first_info + hand
    }

    /// The policy slots of `hand` here, one per legal action.
    pub fn slots(&self, hand: usize) -> Range<usize> {
        let start = self.first_slot + hand * self.legal_actions.len();
        start..start + self.legal_actions.len()
    }
}

/// Why a game's public tree cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum PublicTreeError {
    /// A game whose private hands cannot be enumerated.
    #[error("{game}: too many private hands (or side pots) for exact evaluation over hands")]
    HandsTooMany {
        /// The game.
        game: String,
    },
    /// A public chance move in a game whose hands are drawn independently.
    #[error("{game}: public chance moves are supported only in card games")]
    UnsupportedChance {
        /// The game.
        game: String,
    },
    /// A chance probability that differs from a uniform draw of the rest
    /// of the deck.
    #[error("{game}: public card {card} has chance probability {found}, expected {expected} (a uniform draw)")]
    NonUniformDraw {
        /// The game.
        game: String,
        /// The card.
        card: usize,
        /// Its probability in the game.
        found: f64,
        /// A uniform draw's.
        expected: f64,
    },
}

/// One public node: what happens there, where its children are, and how it
/// was reached.
#[derive(Clone, Copy, Debug)]
struct Node {
    kind: NodeKind,
    first_child: u32,
    num_children: u32,
    parent: u32,
    /// The public move from the parent (a player's action or a card).
    action: u32,
    /// Public cards shown so far, as a bit set (card games).
    public_cards: u64,
}

/// The public tree of a game, built once and shared by every exact
/// algorithm.
pub struct PublicTree {
    game: Arc<dyn Game>,
    hands: Hands,
    nodes: Vec<Node>,
    decisions: Vec<Decision>,
    payoffs: Vec<Payoff>,
    /// Probability of each public chance child given its parent.
    chance_probs: Vec<f64>,
    num_info_slots: usize,
    num_slots: usize,
    num_possible_infos: usize,
    depth: usize,
}

impl std::fmt::Debug for PublicTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PublicTree({}: {} nodes, {} information states)",
            self.game.spec(),
            self.nodes.len(),
            self.num_possible_infos
        )
    }
}

impl PublicTree {
    /// Walks every public node of `game` once.
    pub fn build(game: Arc<dyn Game>) -> Result<PublicTree, PublicTreeError> {
        let hands = game.hands().ok_or_else(|| PublicTreeError::HandsTooMany {
            game: game.spec().to_string(),
        })?;
        let mut tree = PublicTree {
            hands,
            nodes: Vec::new(),
            decisions: Vec::new(),
            payoffs: Vec::new(),
            chance_probs: Vec::new(),
            num_info_slots: 0,
            num_slots: 0,
            num_possible_infos: 0,
            depth: 0,
            game,
        };
        let deal = tree.representative_deal(0, None);
        let root = tree.replay(&deal, &[]);
        tree.nodes.push(Node {
            kind: NodeKind::Chance,
            first_child: 0,
            num_children: 0,
            parent: u32::MAX,
            action: u32::MAX,
            public_cards: 0,
        });
        tree.chance_probs.push(1.0);
        let mut path = Vec::new();
        tree.expand(0, root, &mut path, &deal)?;
        Ok(tree)
    }

    /// Records node `id` (whose state is `state`, reached by `path` with
    /// private hands `deal`) and expands its children depth first; the
    /// children of a node get consecutive ids.
    fn expand(
        &mut self,
        id: usize,
        state: Box<dyn State>,
        path: &mut Vec<Action>,
        deal: &[usize],
    ) -> Result<(), PublicTreeError> {
        let public_cards = self.nodes[id].public_cards;
        self.depth = self.depth.max(path.len() + 1);
        match state.turn() {
            Turn::Terminal => {
                self.nodes[id].kind = NodeKind::Terminal(self.payoffs.len() as u32);
                self.payoffs.push(state.payoff());
            }
            Turn::Player(player) => {
                let legal_actions = state.legal_actions();
                let hands = self.hands.count();
                let decision = Decision {
                    node: id as u32,
                    player,
                    first_info: self.num_info_slots,
                    first_slot: self.num_slots,
                    legal_actions: legal_actions.clone(),
                };
                self.num_info_slots += hands;
                self.num_slots += hands * legal_actions.len();
                self.num_possible_infos += (0..hands)
                    .filter(|&h| self.hand_fits(h, public_cards))
                    .count();
                self.nodes[id].kind = NodeKind::Decision(self.decisions.len() as u32);
                self.decisions.push(decision);
                let first = self.add_children(id, &legal_actions, |_| public_cards);
                for (k, &action) in legal_actions.iter().enumerate() {
                    let mut child = state.clone();
                    child.apply_action(action);
                    path.push(action);
                    self.expand(first + k, child, path, deal)?;
                    path.pop();
                }
            }
            Turn::Chance => {
                let Hands::Cards { cards } = self.hands else {
                    return Err(PublicTreeError::UnsupportedChance {
                        game: self.game.spec().to_string(),
                    });
                };
                let shown = public_cards.count_ones() as usize;
                let left = cards - self.game.num_players() - shown;
                let probability = 1.0 / left as f64;
                let outcomes: Vec<Action> = (0..cards)
                    .filter(|&c| public_cards & (1 << c) == 0)
                    .collect();
                let in_state = state.chance_outcomes();
                if let Some(&(card, found)) = in_state.iter().find(|(_, p)| *p != probability) {
                    return Err(PublicTreeError::NonUniformDraw {
                        game: self.game.spec().to_string(),
                        card,
                        found,
                        expected: probability,
                    });
                }
                let first = self.add_children(id, &outcomes, |c| public_cards | (1 << c));
                for (k, &card) in outcomes.iter().enumerate() {
                    self.chance_probs[first + k] = probability;
                    path.push(card);
                    if deal.contains(&card) {
                        // The representative deal holds this card: replay
                        // the path with a deal that leaves it on the table.
                        let other = self.representative_deal(public_cards | (1 << card), None);
                        let child = self.replay(&other, path);
                        self.expand(first + k, child, path, &other)?;
                    } else {
                        let mut child = state.clone();
                        child.apply_action(card);
                        self.expand(first + k, child, path, deal)?;
                    }
                    path.pop();
                }
            }
        }
        Ok(())
    }

    /// Adds one child per move in `moves` (consecutive ids), showing
    /// `shows(move)` public cards, and returns the first child's id.
    fn add_children(&mut self, id: usize, moves: &[Action], shows: impl Fn(usize) -> u64) -> usize {
        let first = self.nodes.len();
        self.nodes[id].first_child = first as u32;
        self.nodes[id].num_children = moves.len() as u32;
        for &action in moves {
            self.nodes.push(Node {
                kind: NodeKind::Chance,
                first_child: 0,
                num_children: 0,
                parent: id as u32,
                action: action as u32,
                public_cards: shows(action),
            });
            self.chance_probs.push(1.0);
        }
        first
    }

    /// Whether `hand` can be held when `public_cards` are shown.
    fn hand_fits(&self, hand: usize, public_cards: u64) -> bool {
        match self.hands {
            Hands::Cards { .. } => public_cards & (1 << hand) == 0,
            Hands::Independent { .. } => true,
        }
    }

    /// A deal compatible with `public_cards`, where `fixed` (player, hand)
    /// holds its hand and everyone else the lowest hands left.
    fn representative_deal(&self, public_cards: u64, fixed: Option<(usize, usize)>) -> Vec<usize> {
        let players = self.game.num_players();
        match self.hands {
            Hands::Independent { .. } => (0..players)
                .map(|p| match fixed {
                    Some((player, hand)) if player == p => hand,
                    _ => 0,
                })
                .collect(),
            Hands::Cards { cards } => {
                let mut used = public_cards;
                if let Some((_, hand)) = fixed {
                    used |= 1 << hand;
                }
                let mut free = (0..cards).filter(move |&c| used & (1 << c) == 0);
                (0..players)
                    .map(|p| match fixed {
                        Some((player, hand)) if player == p => hand,
                        _ => free.next().expect("the deck covers every player"),
                    })
                    .collect()
            }
        }
    }

    /// The state after dealing `deal` and making the public moves `path`.
    fn replay(&self, deal: &[usize], path: &[Action]) -> Box<dyn State> {
        let mut state = self.game.new_initial_state();
        for action in self.game.deal(deal).into_iter().chain(path.iter().copied()) {
            state.apply_action(action);
        }
        state
    }

    /// The public moves from the root to `node`.
    pub fn path(&self, node: usize) -> Vec<Action> {
        let mut path = Vec::new();
        let mut at = node;
        while at != 0 {
            path.push(self.nodes[at].action as Action);
            at = self.nodes[at].parent as usize;
        }
        path.reverse();
        path
    }

    /// The game.
    pub fn game(&self) -> &Arc<dyn Game> {
        &self.game
    }

    /// The game's spec.
    pub fn spec(&self) -> &GameSpec {
        self.game.spec()
    }

    /// Number of players.
    pub fn num_players(&self) -> usize {
        self.game.num_players()
    }

    /// How hands are dealt.
    pub fn hands(&self) -> &Hands {
        &self.hands
    }

    /// Number of hands per player.
    pub fn num_hands(&self) -> usize {
        self.hands.count()
    }

    /// Most nodes on a path from the root to a leaf.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Number of public nodes.
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// What happens at `node`.
    pub fn kind(&self, node: usize) -> NodeKind {
        self.nodes[node].kind
    }

    /// The children of `node`, consecutive ids.
    pub fn children(&self, node: usize) -> Range<usize> {
        let n = &self.nodes[node];
        n.first_child as usize..(n.first_child + n.num_children) as usize
    }

    /// The public move that led to `node` (a card below a chance node).
    pub fn action_from_parent(&self, node: usize) -> Action {
        self.nodes[node].action as Action
    }

    /// The probability of a chance node's child (1 elsewhere).
    pub fn chance_probability(&self, node: usize) -> f64 {
        self.chance_probs[node]
    }

    /// Public cards shown at `node`, as a bit set over cards.
    pub fn public_cards(&self, node: usize) -> u64 {
        self.nodes[node].public_cards
    }

    /// Every decision node.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    /// Every terminal node's payoff.
    pub fn payoffs(&self) -> &[Payoff] {
        &self.payoffs
    }

    /// Size of the dense information-state index (possible or not).
    pub fn num_info_slots(&self) -> usize {
        self.num_info_slots
    }

    /// Number of (information state, legal action) slots of the dense
    /// index.
    pub fn num_slots(&self) -> usize {
        self.num_slots
    }

    /// Bytes the tree's own arrays hold (nodes, decisions, payoffs, chance
    /// probabilities), for reporting memory per public node.
    pub fn memory_bytes(&self) -> usize {
        let payoff = |p: &Payoff| -> usize {
            std::mem::size_of::<Payoff>()
                + match p {
                    Payoff::Fixed(returns) => returns.capacity() * 8,
                    Payoff::Showdown {
                        contributions,
                        contenders,
                        strength,
                        ..
                    } => {
                        contributions.capacity() * 8
                            + contenders.capacity() * 8
                            + strength.capacity() * 4
                    }
                    Payoff::Table { player0, .. } => player0.capacity() * 8,
                }
        };
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.chance_probs.capacity() * 8
            + self
                .decisions
                .iter()
                .map(|d| std::mem::size_of::<Decision>() + d.legal_actions.capacity() * 8)
                .sum::<usize>()
            + self.payoffs.iter().map(payoff).sum::<usize>()
    }

    /// Number of histories the tree stands for: for each public node, the
    /// deals of private hands that fit its public cards.
    pub fn num_histories(&self) -> f64 {
        let players = self.game.num_players();
        self.nodes
            .iter()
            .map(|node| match self.hands {
                Hands::Cards { cards } => {
                    let left = cards - node.public_cards.count_ones() as usize;
                    (0..players).map(|k| (left - k) as f64).product::<f64>()
                }
                Hands::Independent { ref probabilities } => {
                    (probabilities.len() as f64).powi(players as i32)
                }
            })
            .sum()
    }

    /// Number of information states some history reaches.
    pub fn num_info_states(&self) -> usize {
        self.num_possible_infos
    }

    /// Whether hand `hand` can be held at decision `decision`.
    pub fn is_possible(&self, decision: &Decision, hand: usize) -> bool {
        self.hand_fits(hand, self.nodes[decision.node as usize].public_cards)
    }

    /// Every information state some history reaches: (decision, hand).
    pub fn info_states(&self) -> impl Iterator<Item = (&Decision, usize)> {
        self.decisions.iter().flat_map(move |d| {
            (0..self.num_hands())
                .filter(move |&h| self.is_possible(d, h))
                .map(move |h| (d, h))
        })
    }

    /// A state of the information state (`decision`, `hand`): a history
    /// where the acting player holds `hand` (the others the lowest hands
    /// that fit).
    pub fn representative_state(&self, decision: &Decision, hand: usize) -> Box<dyn State> {
        let node = decision.node as usize;
        let deal =
            self.representative_deal(self.nodes[node].public_cards, Some((decision.player, hand)));
        self.replay(&deal, &self.path(node))
    }

    /// OpenSpiel's string of the information state (`decision`, `hand`).
    pub fn info_state_string(&self, decision: &Decision, hand: usize) -> String {
        self.representative_state(decision, hand)
            .information_state_string(decision.player)
    }

    /// OpenSpiel's tensor of the information state (`decision`, `hand`),
    /// written into `out`.
    pub fn info_state_tensor(&self, decision: &Decision, hand: usize, out: &mut [f32]) {
        self.representative_state(decision, hand)
            .information_state_tensor(decision.player, out);
    }

    /// What a network reads at the information state (`decision`, `hand`)
    /// ([`State::network_input`]), written into `out`.
    pub fn network_input(&self, decision: &Decision, hand: usize, out: &mut [f32]) {
        self.representative_state(decision, hand)
            .network_input(decision.player, out);
    }

    /// Every possible information state by its string (for reading policy
    /// files).
    pub fn info_state_index(&self) -> HashMap<String, (usize, usize)> {
        let mut index = HashMap::with_capacity(self.num_possible_infos);
        for (d, decision) in self.decisions.iter().enumerate() {
            for hand in (0..self.num_hands()).filter(|&h| self.is_possible(decision, h)) {
                index.insert(self.info_state_string(decision, hand), (d, hand));
            }
        }
        index
    }
}
