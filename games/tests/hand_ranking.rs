//! Both hand evaluators (rs_poker's tables, which rank hold'em's hands,
//! and the closed forms, which rank every other game's) against known
//! truth: every one of the 133,784,560 seven-card hands counted by category
//! (the published counts), and the order of random hands against a plain
//! evaluator written here from the rules (best of the 21 five-card subsets,
//! each classified directly).

use rnad_games::universal_poker::ranking::{category, rank_hand, HandEvaluator, Ranks};

/// A card: rank 0 (deuce) to 12 (ace) and suit 0 to 3.
type Card = (u32, u32);

const EVALUATORS: [HandEvaluator; 2] = [
    HandEvaluator::Tables,
    HandEvaluator::ClosedForms { suits: 4 },
];

fn strength(evaluator: HandEvaluator, cards: &[Card]) -> u32 {
    evaluator.strength(cards.iter().map(|&(rank, suit)| (rank * 4 + suit) as u8))
}

#[test]
fn all_seven_card_hands_fall_into_the_published_category_counts() {
    // Straight flush (royal included), quads, full house, flush, straight,
    // trips, two pair, pair, high card; high card first here.
    const PUBLISHED: [u64; 9] = [
        23_294_460, 58_627_800, 31_433_400, 6_461_620, 6_180_020, 4_047_644, 3_473_184, 224_848,
        41_584,
    ];
    let mut counts = [0u64; 9];
    let mut table_counts = [0u64; 9];
    let tables = HandEvaluator::Tables;
    // Cards 0..52 as rank * 4 + suit; suit masks built up card by card.
    let mask = |c: usize| -> [Ranks; 4] {
        let mut m = [0; 4];
        m[c % 4] = 1 << (c / 4);
        m
    };
    let add = |a: [Ranks; 4], b: [Ranks; 4]| [a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]];
    for a in 0..52 {
        let ma = mask(a);
        for b in a + 1..52 {
            let mb = add(ma, mask(b));
            for c in b + 1..52 {
                let mc = add(mb, mask(c));
                for d in c + 1..52 {
                    let md = add(mc, mask(d));
                    for e in d + 1..52 {
                        let me = add(md, mask(e));
                        for f in e + 1..52 {
                            let mf = add(me, mask(f));
                            let six = [a, b, c, d, e, f].map(|x| x as u8);
                            for g in f + 1..52 {
                                counts[category(rank_hand(add(mf, mask(g))))] += 1;
                                let strength = tables.strength(six.into_iter().chain([g as u8]));
                                table_counts[tables.category(strength)] += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    assert_eq!(counts.iter().sum::<u64>(), 133_784_560);
    assert_eq!(counts, PUBLISHED, "closed forms");
    assert_eq!(table_counts, PUBLISHED, "rs_poker's tables");
}

/// A five-card hand classified from the rules: its category and the ranks
/// that break ties, most significant first.
fn plain_five(cards: &[Card]) -> (u32, Vec<u32>) {
    let mut ranks: Vec<u32> = cards.iter().map(|c| c.0).collect();
    ranks.sort_unstable_by(|a, b| b.cmp(a));
    let flush = cards.iter().all(|c| c.1 == cards[0].1);
    let distinct = {
        let mut d = ranks.clone();
        d.dedup();
        d
    };
    let straight_top = if distinct.len() == 5 && ranks[0] - ranks[4] == 4 {
        Some(ranks[0])
    } else if ranks == [12, 3, 2, 1, 0] {
        Some(3)
    } else {
        None
    };
    // Ranks grouped by how often they occur, larger groups then higher ranks first.
    let mut groups: Vec<(usize, u32)> = distinct
        .iter()
        .map(|&r| (ranks.iter().filter(|&&x| x == r).count(), r))
        .collect();
    groups.sort_unstable_by(|a, b| b.cmp(a));
    let by_groups: Vec<u32> = groups.iter().map(|g| g.1).collect();
    let shape: Vec<usize> = groups.iter().map(|g| g.0).collect();
    match (straight_top, flush, shape.as_slice()) {
        (Some(top), true, _) => (8, vec![top]),
        (_, _, [4, 1]) => (7, by_groups),
        (_, _, [3, 2]) => (6, by_groups),
        (_, true, _) => (5, ranks),
        (Some(top), false, _) => (4, vec![top]),
        (_, _, [3, 1, 1]) => (3, by_groups),
        (_, _, [2, 2, 1]) => (2, by_groups),
        (_, _, [2, 1, 1, 1]) => (1, by_groups),
        _ => (0, ranks),
    }
}

/// The best five of seven cards by the plain classification.
fn plain_seven(cards: &[Card; 7]) -> (u32, Vec<u32>) {
    let mut best = (0, Vec::new());
    for skip_a in 0..7 {
        for skip_b in skip_a + 1..7 {
            let five: Vec<Card> = (0..7)
                .filter(|&i| i != skip_a && i != skip_b)
                .map(|i| cards[i])
                .collect();
            best = best.max(plain_five(&five));
        }
    }
    best
}

#[test]
fn random_hands_compare_as_the_plain_evaluator_compares_them() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut deal = || {
        let mut deck: Vec<Card> = (0..52).map(|c| (c / 4, c % 4)).collect();
        let mut hand = [(0, 0); 7];
        for card in hand.iter_mut() {
            *card = deck.swap_remove(next(deck.len() as u64) as usize);
        }
        hand
    };
    let mut categories_seen = [false; 9];
    for _ in 0..50_000 {
        let (a, b) = (deal(), deal());
        let (plain_a, plain_b) = (plain_seven(&a), plain_seven(&b));
        for evaluator in EVALUATORS {
            let (sa, sb) = (strength(evaluator, &a), strength(evaluator, &b));
            assert_eq!(
                evaluator.category(sa) as u32,
                plain_a.0,
                "{evaluator:?}: {a:?}"
            );
            assert_eq!(
                sa.cmp(&sb),
                plain_a.cmp(&plain_b),
                "{evaluator:?}: {a:?} vs {b:?}"
            );
        }
        categories_seen[plain_a.0 as usize] = true;
    }
    // Random hands reach every category but straight flushes (1 in 3,200).
    assert!(
        categories_seen[..8].iter().all(|&c| c),
        "{categories_seen:?}"
    );
}
