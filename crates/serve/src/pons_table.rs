//! Pascal Pons' solved connect-four test positions, looked up by the
//! stones on the board: where the analysed position is one of them, the
//! page shows the exact score of every move. The data directory is found
//! as `cargo xtask eval az-connect4` finds it (`MINNOW_DATA`, or `data/`
//! in the working directory or above it).

use minnow_envs::ConnectFour;
use minnow_envs::connect4::COLUMNS;
use minnow_envs::connect4::pons::{self, PONS_SETS};
use minnow_tasks::alphazero::pons_dir;
use std::collections::HashMap;

/// Each column's exact score (`None`: full) and the label of the set.
pub type Solved = ([Option<i8>; COLUMNS], &'static str);

/// Exact move scores by position (both sides' stones).
#[derive(Debug)]
pub struct PonsTable {
    scores: HashMap<(u64, u64), Solved>,
}

impl PonsTable {
    /// Reads all six sets; an error says where the data was looked for.
    pub fn load() -> Result<Self, String> {
        let dir = pons_dir().map_err(|e| e.to_string())?;
        let mut scores = HashMap::new();
        for (set, label) in PONS_SETS {
            let path = dir.join(format!("{set}.jsonl.gz"));
            for p in pons::load_set(&path).map_err(|e| e.to_string())? {
                scores.insert(key(&p.game), (p.move_scores, label));
            }
        }
        Ok(Self { scores })
    }

    /// The exact score of each column at `game` (`None` for a full
    /// column) and the set's label, if `game` is a test position.
    pub fn lookup(&self, game: &ConnectFour) -> Option<&Solved> {
        self.scores.get(&key(game))
    }
}

fn key(game: &ConnectFour) -> (u64, u64) {
    (game.stones(0), game.stones(1))
}
