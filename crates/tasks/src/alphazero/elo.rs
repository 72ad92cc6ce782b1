//! The ratings of a run's snapshots at its end: printed, drawn to
//! `elo.png` and kept for the summary.

use crate::alphazero::PUBEVAL;
use minnow_envs::Game;
use minnow_rl::alphazero::AzRun;
use minnow_train::{Session, TaskError};

/// Prints the ratings (every snapshot's in the last fit, random at 0),
/// plots them to `elo.png` and returns them for the summary; nothing when
/// no evaluation rated a snapshot.
pub(crate) fn elo_summary<G: Game + Default + Send + Sync>(
    run: &AzRun<G>,
    task: &str,
    session: &dyn Session,
) -> Result<serde_json::Value, TaskError> {
    let league = run.league();
    let Some((best_iteration, _, best)) = league.best() else { return Ok(serde_json::Value::Null) };
    let curve = league.curve();
    let points: Vec<(f64, f64)> = curve.iter().map(|(it, r)| (*it as f64, r.elo)).collect();
    session.plot("elo.png", task, &[("Elo of each snapshot (random = 0)", &points)])?;
    let rollout = league.rollout_rating().filter(|r| r.elo.is_finite());
    let pubeval = league.rating_of(PUBEVAL).filter(|r| r.elo.is_finite());
    let (last_iteration, last) = *curve.last().expect("a best snapshot was rated");
    minnow_train::out!("Elo (random = 0");
    if let Some(r) = rollout {
        minnow_train::out!(", {} {:.0}", league.record().players[1], r.elo);
    }
    if let Some(r) = pubeval {
        minnow_train::out!(", pubeval {:.0}", r.elo);
    }
    minnow_train::outln!(
        "): iteration {last_iteration} {:.0} [{:.0}-{:.0}]; best iteration {best_iteration} {:.0} [{:.0}-{:.0}] (in best/)",
        last.elo,
        last.lo,
        last.hi,
        best.elo,
        best.lo,
        best.hi
    );
    let curve: Vec<_> = curve.iter().map(|(it, r)| serde_json::json!({"iteration": it, "rating": r})).collect();
    Ok(serde_json::json!({
        "random": 0.0,
        "rollout": rollout,
        "pubeval": pubeval,
        "best": {"iteration": best_iteration, "rating": best},
        "curve": curve,
    }))
}
