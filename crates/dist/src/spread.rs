//! Independent jobs (the seeds of a sweep) spread over the ranks in rounds:
//! in round k rank r runs item `k * size + r`; after each round every rank
//! holds every result of it, so each can tell alike whether to go on.

use crate::{Collective, DistError, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The results of one round, in item order.
pub type Round<'a, I, T> = &'a [(I, T)];

/// Runs `work` on every item, spread over `comm`'s ranks, and returns every
/// item's result in item order on every rank. Rank 0 hears each round as it
/// ends (`on_round`: print its rows, say). With `until` the job stops
/// after the first round in which some result meets it. A rank whose work
/// fails stops every rank after that round with its error.
pub fn spread<I, T, E>(
    comm: &dyn Collective,
    items: &[I],
    mut work: impl FnMut(&I) -> std::result::Result<T, E>,
    until: Option<&dyn Fn(&T) -> bool>,
    mut on_round: impl FnMut(Round<'_, I, T>),
) -> Result<Vec<(I, T)>>
where
    I: Clone,
    T: Serialize + DeserializeOwned,
    E: std::fmt::Display,
{
    let size = comm.size();
    let mut results = Vec::with_capacity(items.len());
    for round in items.chunks(size) {
        let mine: Option<std::result::Result<T, String>> =
            round.get(comm.rank()).map(|item| work(item).map_err(|e| e.to_string()));
        let bytes =
            serde_json::to_vec(&mine).map_err(|e| DistError::Decode { rank: comm.rank(), detail: e.to_string() })?;
        let gathered = comm.all_gather_bytes(&bytes);
        let start = results.len();
        for (rank, (item, bytes)) in round.iter().zip(&gathered).enumerate() {
            let decoded: Option<std::result::Result<T, String>> =
                serde_json::from_slice(bytes).map_err(|e| DistError::Decode { rank, detail: e.to_string() })?;
            match decoded {
                Some(Ok(result)) => results.push((item.clone(), result)),
                Some(Err(message)) => return Err(DistError::RankFailed { rank, message }),
                None => return Err(DistError::Decode { rank, detail: "no result for its item".into() }),
            }
        }
        if comm.rank() == 0 {
            on_round(&results[start..]);
        }
        if until.is_some_and(|met| results[start..].iter().any(|(_, r)| met(r))) {
            break;
        }
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rank_runs_every_item_in_order_and_stops_at_the_first_that_meets_the_target() {
        let items = [3u64, 5, 8, 13];
        let mut heard = Vec::new();
        let square = |x: &u64| Ok::<_, String>(x * x);
        let all = spread(&crate::Solo, &items, square, None, |r| heard.extend_from_slice(r)).unwrap();
        assert_eq!(all, [(3, 9), (5, 25), (8, 64), (13, 169)]);
        assert_eq!(heard, all);

        let over_20: &dyn Fn(&u64) -> bool = &|v| *v > 20;
        let first = spread(&crate::Solo, &items, square, Some(over_20), |_| {}).unwrap();
        assert_eq!(first, [(3, 9), (5, 25)]);
    }

    #[test]
    fn a_failed_item_names_its_rank_and_error() {
        let fail = |x: &u64| if *x == 5 { Err("seed 5 diverged") } else { Ok(*x) };
        let e = spread(&crate::Solo, &[3u64, 5, 8], fail, None, |_| {}).unwrap_err();
        assert_eq!(e.to_string(), "rank 0 failed: seed 5 diverged");
    }
}
