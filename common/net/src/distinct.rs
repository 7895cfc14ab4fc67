//! The distinct rows of a row-major matrix of observations, and where each
//! row is among them: networks run once per distinct information state
//! and rows gather the result (the learner's batches and the actors'
//! games both repeat states often: a Leduc batch of about 2,200 decisions
//! holds about 450 distinct ones).

use std::collections::HashMap;

/// The distinct `size`-long rows of `values` (equal meaning bit for bit)
/// in order of first appearance, and each row's index among them.
pub fn distinct_rows(values: &[f32], size: usize) -> (Vec<f32>, Vec<u32>) {
    let size = size.max(1);
    distinct_rows_of(values.chunks_exact(size), size, values.len() / size)
}

/// [`distinct_rows`] of rows that need not lie in one buffer (a batch's
/// trajectories each hold their own), each exactly `size` values long,
/// about `expected_rows` of them.
pub fn distinct_rows_of<'a>(
    rows: impl IntoIterator<Item = &'a [f32]>,
    size: usize,
    expected_rows: usize,
) -> (Vec<f32>, Vec<u32>) {
    distinct_rows_by(rows, size, expected_rows, row_hash)
}

/// A row's bits two values to a word, each word mixed in by a rotate, an
/// exclusive or and a multiply (FxHash's step): half the dependent
/// multiplies of hashing value by value, which was a large part of what
/// finding the distinct rows of a learner batch cost (perf, three-player
/// Leduc). Collisions only cost a comparison: rows are confirmed equal
/// before they share an index. The low bits are weak (the last multiply
/// pushes bits upward): the map rehashes the key, which it needs.
fn row_hash(row: &[f32]) -> u64 {
    let mix =
        |hash: u64, word: u64| (hash.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    let mut pairs = row.chunks_exact(2);
    let hash = pairs.by_ref().fold(0, |hash, pair| {
        mix(
            hash,
            u64::from(pair[0].to_bits()) | (u64::from(pair[1].to_bits()) << 32),
        )
    });
    pairs
        .remainder()
        .iter()
        .fold(hash, |hash, v| mix(hash, u64::from(v.to_bits())))
}

/// [`distinct_rows_of`] with rows found by `hash` and confirmed by
/// comparing them, so no key is allocated per row; `next` chains the
/// distinct rows whose hashes are equal.
fn distinct_rows_by<'a>(
    rows: impl IntoIterator<Item = &'a [f32]>,
    size: usize,
    expected_rows: usize,
    hash: impl Fn(&[f32]) -> u64,
) -> (Vec<f32>, Vec<u32>) {
    let size = size.max(1);
    let mut first: HashMap<u64, u32> = HashMap::with_capacity(expected_rows);
    let mut next: Vec<Option<u32>> = Vec::new();
    let mut distinct: Vec<f32> = Vec::new();
    let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
    let index = rows
        .into_iter()
        .map(|row| {
            debug_assert_eq!(row.len(), size, "rows of one width");
            let new = (distinct.len() / size) as u32;
            let mut candidate = *first.entry(hash(row)).or_insert(new);
            loop {
                if candidate == new {
                    distinct.extend_from_slice(row);
                    next.push(None);
                    return new;
                }
                let at = candidate as usize * size;
                if same(&distinct[at..at + size], row) {
                    return candidate;
                }
                candidate = *next[candidate as usize].get_or_insert(new);
            }
        })
        .collect();
    (distinct, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against comparing every row with every earlier one: rows drawn from
    /// a few values, so that most repeat, with -0.0 and 0.0 told apart;
    /// rows of three values, so the hash's last word holds one. Twice with
    /// the real hash (one buffer, then rows from two buffers) and once with
    /// every row's hash equal, which puts every row on one chain.
    #[test]
    fn distinct_rows_agree_with_pairwise_comparison_even_when_every_hash_collides() {
        let pool = [0.0f32, -0.0, 1.0, 0.5];
        let size = 3;
        let values: Vec<f32> = (0..40 * size).map(|i| pool[(i * i + i / 5) % 4]).collect();
        let mut expected_distinct: Vec<&[f32]> = Vec::new();
        let expected_index: Vec<u32> = values
            .chunks_exact(size)
            .map(|row| {
                let bits = |r: &[f32]| r.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                match expected_distinct.iter().position(|d| bits(d) == bits(row)) {
                    Some(i) => i as u32,
                    None => {
                        expected_distinct.push(row);
                        (expected_distinct.len() - 1) as u32
                    }
                }
            })
            .collect();
        assert!(expected_distinct.len() > 3 && expected_distinct.len() < 30);
        let flat: Vec<f32> = expected_distinct.concat();
        assert_eq!(
            distinct_rows(&values, size),
            (flat.clone(), expected_index.clone())
        );
        assert_eq!(
            distinct_rows_by(values.chunks_exact(size), size, 0, |_| 7),
            (flat.clone(), expected_index.clone())
        );
        // Rows from separate buffers.
        let (head, tail) = values.split_at(17 * size);
        assert_eq!(
            distinct_rows_of(
                head.chunks_exact(size).chain(tail.chunks_exact(size)),
                size,
                40
            ),
            (flat, expected_index)
        );
    }
}
