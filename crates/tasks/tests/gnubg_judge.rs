//! The gnubg judge on 300 recorded decisions of GNU Backgammon's
//! self-play (`data/gnubg_judge.txt`, written by the judge's own script):
//! every play gnubg rates reads as one of minnow's, gnubg's own choices
//! lose nothing, and pubeval loses what it should. The last test runs
//! gnubg itself and is ignored unless asked for
//! (`cargo test -p minnow-tasks --test gnubg_judge -- --ignored`).

use minnow_envs::Backgammon;
use minnow_envs::backgammon::Play;
use minnow_envs::backgammon::pubeval::Pubeval;
use minnow_tasks::backgammon::ChoosePlay;
use minnow_tasks::backgammon::gnubg_judge::{self, GnubgDecision, judge, read_decisions};

const RECORDED: &str = include_str!("data/gnubg_judge.txt");

/// Chooses, decision after decision, the play at `rank` in gnubg's order
/// (0 its best, 1 its second best; the last play if there are fewer).
struct Ranked<'a> {
    decisions: &'a [GnubgDecision],
    next: usize,
    rank: usize,
}

impl ChoosePlay for Ranked<'_> {
    fn choose(&mut self, game: &Backgammon, plays: &[Play]) -> minnow_rl::Result<usize> {
        let decision = &self.decisions[self.next];
        assert_eq!(&decision.game, game, "the judge asks in the decisions' order");
        self.next += 1;
        let mut order: Vec<usize> = (0..plays.len()).collect();
        order.sort_by(|&a, &b| decision.equities[b].total_cmp(&decision.equities[a]));
        Ok(order[self.rank.min(order.len() - 1)])
    }
}

#[test]
fn every_recorded_play_reads_and_gnubgs_choice_loses_nothing() {
    let decisions = read_decisions(RECORDED).unwrap();
    assert_eq!(decisions.len(), 300);
    let best = judge(&decisions, &mut Ranked { decisions: &decisions, next: 0, rank: 0 }).unwrap();
    assert_eq!((best.decisions, best.memg, best.agreed, best.bad), (300, 0.0, 300, 0));
    let second = judge(&decisions, &mut Ranked { decisions: &decisions, next: 0, rank: 1 }).unwrap();
    assert!(second.memg > 0.0 && second.agreed < 300, "{second:?}");
}

#[test]
fn pubeval_gives_away_equity_against_gnubg() {
    let decisions = read_decisions(RECORDED).unwrap();
    let pubeval = judge(&decisions, &mut Pubeval::standard()).unwrap();
    // Tesauro's linear evaluator is a far weaker player than gnubg 0-ply:
    // it agrees on most plays but gives away tens of millipoints a move.
    assert!(pubeval.memg > 10.0 && pubeval.memg < 100.0, "{pubeval:?}");
    assert!(pubeval.agreed > 100 && pubeval.bad > 0, "{pubeval:?}");
}

#[test]
fn output_that_is_not_a_decision_is_a_clear_error() {
    let e = read_decisions("minnow-judge\t4HPwATDgc/ABMA\t31\t8/5 6/5\n").unwrap_err();
    assert!(e.to_string().contains("pairs of a play and its equity"), "{e}");
    let e = read_decisions("minnow-judge\t4HPwATDgc/ABMA\t31\t8/5 6/5\t0.2\n").unwrap_err();
    assert!(e.to_string().contains("gnubg rates 1 plays, minnow lists 16"), "{e}");
    let e = read_decisions("minnow-judge\t4HPwATDgc/ABMA\t31\t8/4 6/5\t0.2\n").unwrap_err();
    assert!(e.to_string().contains("not a legal play"), "{e}");
    assert!(read_decisions("gnubg's own chatter\n").unwrap().is_empty());
}

#[test]
#[ignore = "runs GNU Backgammon (gnubg), which CI does not install"]
fn gnubg_itself_writes_decisions_the_judge_reads() {
    let program =
        ["/usr/games/gnubg", "gnubg"].into_iter().find(|p| std::path::Path::new(p).exists()).unwrap_or("gnubg");
    let decisions = gnubg_judge::gnubg_decisions(program.as_ref(), 20, 1).unwrap();
    assert_eq!(decisions.len(), 20);
    // The same seed gives the recorded games.
    assert_eq!(decisions[..], read_decisions(RECORDED).unwrap()[..20]);
}
