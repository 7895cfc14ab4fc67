//! Every history of a game, enumerated once as its own node: the simple,
//! slow reference that tests hold the public-tree algorithms
//! ([`rnad_games::public_tree`]) against. It makes no assumption about which
//! moves are public, so it checks that assumption too.
//!
//! Nodes are numbered breadth-first, so every depth is one contiguous range
//! (a *level*) and the children of a node are contiguous in the next level.
//! Every decision node belongs to an [`InfoState`], found by its string;
//! each legal action of an information state owns one *slot*, and a policy
//! is one `f64` per slot. Child `k` of a decision node is reached by legal
//! action `k`, whose slot is `first_slot + k`.

use std::collections::HashMap;
use std::ops::Range;

use rnad_games::{Action, Game, State, Turn};

/// One information state: what its player knows, and its actions.
#[derive(Clone, Debug)]
pub struct InfoState {
    /// OpenSpiel's information-state string.
    pub string: String,
    /// The player who acts here.
    pub player: usize,
    /// Legal actions, increasing.
    pub legal_actions: Vec<Action>,
    /// Slot of the first legal action in a flat policy vector.
    pub first_slot: usize,
    /// Depth (level) of every history in this information state.
    pub level: usize,
}

impl InfoState {
    /// Slots of this information state's legal actions, in order.
    pub fn slots(&self) -> Range<usize> {
        self.first_slot..self.first_slot + self.legal_actions.len()
    }
}

/// What happens at a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// Nature draws one of the children with the probabilities on their edges.
    Chance,
    /// A player chooses; `info_state` indexes [`HistoryTree::info_states`].
    Decision {
        /// The acting player.
        player: u8,
        /// The information state of the acting player here.
        info_state: u32,
    },
    /// The game is over; see [`HistoryTree::returns`].
    Terminal,
}

/// How a node was reached from its parent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Edge {
    /// The root has no parent.
    Root,
    /// A chance outcome with this probability.
    Chance(f64),
    /// A player's action; `slot` is its index in a flat policy vector.
    Action {
        /// The player who took the action.
        player: u8,
        /// The policy slot of the action.
        slot: u32,
    },
}

impl Edge {
    /// The probability of following this edge: its chance probability, or
    /// its action's entry in a flat per-slot policy vector.
    pub fn probability(self, policy: &[f64]) -> f64 {
        match self {
            Edge::Chance(p) => p,
            Edge::Action { slot, .. } => policy[slot as usize],
            Edge::Root => 1.0,
        }
    }
}

/// Errors found while enumerating a game.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// The exact algorithms process one depth at a time, which needs every
    /// history of an information state at the same depth.
    #[error("information state {info_state:?} occurs at depths {first} and {second}: exact evaluation needs each information state at one depth")]
    MixedDepth {
        /// The information state string.
        info_state: String,
        /// The first depth it was seen at.
        first: usize,
        /// Another depth it was seen at.
        second: usize,
    },
    /// The same information state string with different players or actions.
    #[error(
        "information state {0:?} has different players or legal actions in different histories"
    )]
    Inconsistent(String),
}

/// The enumerated game tree and its information-state index.
#[derive(Debug)]
pub struct HistoryTree {
    num_players: usize,
    nodes: Vec<Node>,
    parents: Vec<u32>,
    edges: Vec<Edge>,
    first_child: Vec<u32>,
    num_children: Vec<u32>,
    returns: Vec<f64>,
    levels: Vec<Range<usize>>,
    info_states: Vec<InfoState>,
    by_string: HashMap<String, usize>,
    num_slots: usize,
}

impl HistoryTree {
    /// Enumerates every history of `game`.
    pub fn build(game: &dyn Game) -> Result<HistoryTree, TreeError> {
        let mut builder = Builder::new(game);
        let mut level: Vec<Box<dyn State>> = vec![game.new_initial_state()];
        builder.parents.push(u32::MAX);
        builder.edges.push(Edge::Root);
        while !level.is_empty() {
            level = builder.expand_level(level)?;
        }
        Ok(builder.finish())
    }

    /// Number of players.
    pub fn num_players(&self) -> usize {
        self.num_players
    }

    /// Number of nodes (histories).
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// What happens at each node, indexed by node id.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Each node's parent (`u32::MAX` for the root).
    pub fn parents(&self) -> &[u32] {
        &self.parents
    }

    /// How each node was reached from its parent.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The children of `node`, a contiguous range of node ids.
    pub fn children(&self, node: usize) -> Range<usize> {
        let first = self.first_child[node] as usize;
        first..first + self.num_children[node] as usize
    }

    /// Each player's return at a terminal `node` (zeros elsewhere).
    pub fn returns(&self, node: usize) -> &[f64] {
        &self.returns[node * self.num_players..(node + 1) * self.num_players]
    }

    /// Node ranges by depth: `levels()[d]` holds every node at depth `d`.
    pub fn levels(&self) -> &[Range<usize>] {
        &self.levels
    }

    /// Every information state, in discovery order.
    pub fn info_states(&self) -> &[InfoState] {
        &self.info_states
    }

    /// Total number of (information state, legal action) slots.
    pub fn num_slots(&self) -> usize {
        self.num_slots
    }
}

/// Accumulates the flat arrays level by level.
struct Builder {
    tree: HistoryTree,
    parents: Vec<u32>,
    edges: Vec<Edge>,
}

impl Builder {
    fn new(game: &dyn Game) -> Self {
        Builder {
            tree: HistoryTree {
                num_players: game.num_players(),
                nodes: Vec::new(),
                parents: Vec::new(),
                edges: Vec::new(),
                first_child: Vec::new(),
                num_children: Vec::new(),
                returns: Vec::new(),
                levels: Vec::new(),
                info_states: Vec::new(),
                by_string: HashMap::new(),
                num_slots: 0,
            },
            parents: Vec::new(),
            edges: Vec::new(),
        }
    }

    /// Records the nodes of one level and returns the states of the next.
    fn expand_level(
        &mut self,
        level: Vec<Box<dyn State>>,
    ) -> Result<Vec<Box<dyn State>>, TreeError> {
        let depth = self.tree.levels.len();
        let start = self.tree.nodes.len();
        self.tree.levels.push(start..start + level.len());
        let mut next = Vec::new();
        for (offset, state) in level.into_iter().enumerate() {
            let id = (start + offset) as u32;
            // Children get the next free ids: every node's parent is pushed
            // in id order, so the count so far is the first child's id.
            let child_start = self.parents.len();
            let (node, children): (Node, Vec<(Action, Edge)>) = match state.turn() {
                Turn::Chance => (
                    Node::Chance,
                    state
                        .chance_outcomes()
                        .into_iter()
                        .map(|(a, p)| (a, Edge::Chance(p)))
                        .collect(),
                ),
                Turn::Player(player) => {
                    let info_state = self.info_state(state.as_ref(), player, depth)?;
                    let first_slot = self.tree.info_states[info_state].first_slot;
                    let node = Node::Decision {
                        player: player as u8,
                        info_state: info_state as u32,
                    };
                    let children = state
                        .legal_actions()
                        .into_iter()
                        .enumerate()
                        .map(|(k, a)| {
                            let edge = Edge::Action {
                                player: player as u8,
                                slot: (first_slot + k) as u32,
                            };
                            (a, edge)
                        })
                        .collect();
                    (node, children)
                }
                Turn::Terminal => (Node::Terminal, Vec::new()),
            };
            let returns = match node {
                Node::Terminal => state.returns(),
                _ => vec![0.0; self.tree.num_players],
            };
            self.tree.returns.extend(returns);
            self.tree.nodes.push(node);
            self.tree.first_child.push(child_start as u32);
            self.tree.num_children.push(children.len() as u32);
            for (action, edge) in children {
                let mut child = state.clone_box();
                child.apply_action(action);
                self.parents.push(id);
                self.edges.push(edge);
                next.push(child);
            }
        }
        Ok(next)
    }

    /// The index of `state`'s information state, added on first sight.
    fn info_state(
        &mut self,
        state: &dyn State,
        player: usize,
        depth: usize,
    ) -> Result<usize, TreeError> {
        let string = state.information_state_string(player);
        let legal_actions = state.legal_actions();
        if let Some(&index) = self.tree.by_string.get(&string) {
            let known = &self.tree.info_states[index];
            if known.player != player || known.legal_actions != legal_actions {
                return Err(TreeError::Inconsistent(string));
            }
            if known.level != depth {
                return Err(TreeError::MixedDepth {
                    info_state: string,
                    first: known.level,
                    second: depth,
                });
            }
            return Ok(index);
        }
        let index = self.tree.info_states.len();
        let first_slot = self.tree.num_slots;
        self.tree.num_slots += legal_actions.len();
        self.tree.by_string.insert(string.clone(), index);
        self.tree.info_states.push(InfoState {
            string,
            player,
            legal_actions,
            first_slot,
            level: depth,
        });
        Ok(index)
    }

    fn finish(mut self) -> HistoryTree {
        self.tree.parents = self.parents;
        self.tree.edges = self.edges;
        self.tree
    }
}
