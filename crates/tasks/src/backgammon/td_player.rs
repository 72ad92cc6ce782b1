//! The learned network choosing a whole play: the afterstate it rates
//! best (1-ply), or the best of its few best by a 2-ply search.

use crate::backgammon::BackgammonTurns;
use crate::backgammon::{ChoosePlay, no_play};
use minnow_envs::backgammon::Play;
use minnow_envs::{Backgammon, Game, Turn};
use minnow_rl::Result;
use minnow_rl::afterstate::{Searcher, ValueNet};
use std::sync::Arc;

/// The learned network choosing a play: the best afterstate (`keep` =
/// 1), or the best of the `keep` best by a 2-ply search.
#[derive(Debug)]
pub struct TdChooser {
    net: Arc<ValueNet>,
    turns: BackgammonTurns,
    searcher: Searcher<BackgammonTurns>,
    candidates: Vec<Backgammon>,
    keep: usize,
}

impl TdChooser {
    /// Choosing with `net`, by 2-ply over its `keep` best (1: the network alone).
    pub fn new(net: Arc<ValueNet>, keep: usize) -> Self {
        let searcher = Searcher::new(&net);
        Self { net, turns: BackgammonTurns::default(), searcher, candidates: Vec::with_capacity(4096), keep }
    }
}

impl ChoosePlay for TdChooser {
    fn choose(&mut self, game: &Backgammon, plays: &[Play]) -> Result<usize> {
        let (Turn::Player(mover), false) = (game.turn(), plays.is_empty()) else {
            return Err(no_play().into());
        };
        self.candidates.clear();
        self.candidates.extend(plays.iter().map(|p| p.after));
        Ok(if self.keep <= 1 {
            self.searcher.one_ply(&self.turns, &self.net, mover, &self.candidates).0
        } else {
            self.searcher.two_ply(&mut self.turns, &self.net, mover, &self.candidates, self.keep)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backgammon::{FEATURES, OUTPUTS, WholeTurnPlayer};
    use minnow_envs::backgammon::{BackgammonConfig, POINTS, Position, TurnPlays};
    use minnow_rl::afterstate::{AfterstateGame, TdLambda, TdLambdaConfig};
    use minnow_rl::alphazero::play_from;
    use rand::SeedableRng;

    fn small_net(seed: u64) -> ValueNet {
        ValueNet::new(FEATURES, 16, OUTPUTS, &mut rand_pcg::Pcg64Mcg::seed_from_u64(seed))
    }

    #[test]
    fn training_and_both_players_allocate_nothing_after_warm_up() {
        let mut net = small_net(1);
        let mut turns = BackgammonTurns::default();
        let mut td = TdLambda::new(&net);
        let config = TdLambdaConfig { lambda: 0.7, learning_rate: 0.1 };
        for k in 0..3 {
            td.train_game(&mut turns, &mut net, k, &config);
        }
        let (decisions, on_thread, _) = minnow_arena::count_allocations(|| {
            (3..8).map(|k| td.train_game(&mut turns, &mut net, k, &config).decisions).sum::<u64>()
        });
        assert!(decisions > 100, "{decisions} decisions");
        assert_eq!(on_thread.allocations, 0, "{} bytes over {decisions} decisions", on_thread.bytes);

        let net = Arc::new(net);
        let mut one = WholeTurnPlayer::new(TdChooser::new(net.clone(), 1));
        let mut two = WholeTurnPlayer::new(TdChooser::new(net, 4));
        let start = |seed| turns.start(seed);
        for seed in 0..2 {
            play_from::<Backgammon>([&mut one, &mut two], start(seed), seed, 3000).unwrap();
        }
        let (end, on_thread, _) = minnow_arena::count_allocations(|| {
            play_from::<Backgammon>([&mut one, &mut two], start(5), 5, 3000).unwrap()
        });
        assert_eq!(end.turn(), Turn::Over);
        // The one allocation is play_from's chance-outcome buffer.
        assert_eq!(on_thread.allocations, 1, "{} bytes", on_thread.bytes);
    }

    #[test]
    fn two_ply_takes_a_winning_play_and_agrees_with_one_ply_when_keeping_one() {
        let mut points = [0; POINTS];
        points[18] = 1;
        points[23] = 1;
        points[0] = -15;
        let position = Position::new(points, [0, 0], [13, 0]).unwrap();
        let game = Backgammon::from_position(BackgammonConfig::default(), position, 0, (6, 1)).unwrap();
        let plays = TurnPlays::new().generate(&game).to_vec();
        let net = Arc::new(small_net(2));
        for keep in [1, 3, 50] {
            let i = TdChooser::new(net.clone(), keep).choose(&game, &plays).unwrap();
            assert_eq!(plays[i].after.turn(), Turn::Over, "keep {keep}");
        }
        let start = BackgammonTurns::default().start(4);
        let plays = TurnPlays::new().generate(&start).to_vec();
        let one = TdChooser::new(net.clone(), 1).choose(&start, &plays).unwrap();
        let mut searcher = Searcher::<BackgammonTurns>::new(&net);
        let candidates: Vec<_> = plays.iter().map(|p| p.after).collect();
        let mut turns = BackgammonTurns::default();
        assert_eq!(searcher.two_ply(&mut turns, &net, start.player(), &candidates, 1), one);
    }
}
