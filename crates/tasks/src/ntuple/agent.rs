//! A trained n-tuple player read back: from a run checkpoint (its dense
//! tables) or from a shipped agent, which holds the tables' sparse form
//! ([`write_agent`]): a trained network has a value in under 1% of its
//! entries, so the 805 MB of twelve 6-tuple tables ship in about 7 MB and
//! read back bit for bit.

use super::NTuple2048;
use super::config::NTupleConfig;
use super::player::Player;
use super::run::{TASK, WEIGHTS};
use minnow_train::{RunCheckpoint, Task, TaskError};
use std::path::Path;

/// The shipped agent's tensor of the gaps between the positions of the
/// table entries that are not 0 (LEB128 bytes, U8), in the tables' flat
/// order ([`minnow_rl::ntuple::SparseWeights`]).
pub const SPARSE_GAPS: &str = "ntuple.sparse.gaps";

/// The shipped agent's tensor of those entries' values (F32, bit for bit).
pub const SPARSE_VALUES: &str = "ntuple.sparse.values";

/// A trained n-tuple player of 2048 and what it was trained with.
#[derive(Clone, Debug)]
pub struct NTupleAgent {
    /// The run's config (the tuples, the levels, the game, the evaluations).
    pub config: NTupleConfig,
    /// Training games it played.
    pub games: u64,
    pub(crate) player: Player,
}

/// How much of the tables a shipped agent keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SparseCount {
    /// Entries that are not 0, kept.
    pub kept: usize,
    /// Entries of the tables.
    pub entries: usize,
}

impl NTupleAgent {
    /// Reads a run checkpoint of `ntuple-2048` or an agent shipped from
    /// one; an error names the file and what does not fit. The tables are
    /// allocated whole (zeroed memory that is not touched costs nothing),
    /// so the player values a board exactly as in training.
    pub fn load(path: &Path) -> Result<Self, TaskError> {
        let run = RunCheckpoint::read(path, TASK)?;
        Self::from_run(&run).map_err(|e| format!("{}: {e}", path.display()).into())
    }

    fn from_run(run: &RunCheckpoint) -> Result<Self, TaskError> {
        let config: NTupleConfig = run.json("config")?;
        NTuple2048.check(&config).map_err(|e| format!("checkpoint config: {e}"))?;
        let mut player = Player::new(&config)?;
        let raw = run.raw();
        match (raw.bytes(SPARSE_GAPS), raw.tensor(SPARSE_VALUES), raw.tensor(WEIGHTS)) {
            (Some(gaps), Some(values), None) => player.net.restore_sparse(SPARSE_GAPS, gaps, values)?,
            (None, None, Some(_)) => player.net.restore(raw, WEIGHTS)?,
            (gaps, values, dense) => {
                let has = |found: bool, name: &str| if found { format!("{name} (found)") } else { name.to_string() };
                return Err(format!(
                    "expected the tables ({}) or their sparse form ({}, U8, and {}, F32), one of the two",
                    has(dense.is_some(), WEIGHTS),
                    has(gaps.is_some(), SPARSE_GAPS),
                    has(values.is_some(), SPARSE_VALUES)
                )
                .into());
            }
        }
        Ok(Self { config, games: run.step()?, player })
    }
}

/// Writes the agent of `run` (a run checkpoint of `ntuple-2048`, or an
/// agent already shipped) to `path`: the header and metadata (the config,
/// the games played) and the tables' sparse form, [`SPARSE_GAPS`] and
/// [`SPARSE_VALUES`], in place of the dense tables. The file reads back
/// with [`NTupleAgent::load`] for evaluation and play, not to resume.
pub fn write_agent(run: &RunCheckpoint, path: &Path) -> Result<SparseCount, TaskError> {
    let agent = NTupleAgent::from_run(run).map_err(|e| format!("{}: {e}", run.path().display()))?;
    let sparse = agent.player.net.sparse();
    let tensors: Vec<&str> = run.raw().names().collect();
    run.raw()
        .rewrite(&tensors)
        .bytes(SPARSE_GAPS, &[sparse.gaps.len()], &sparse.gaps)
        .tensor(SPARSE_VALUES, &[sparse.values.len()], &sparse.values)
        .meta("agent", "weights only")
        .save(path)?;
    Ok(SparseCount { kept: sparse.values.len(), entries: agent.player.net.weights().len() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ntuple::NTupleEvalConfig;
    use crate::ntuple::run::NTupleRun;
    use minnow_envs::{Env, Game2048};
    use minnow_nn::Checkpoint;
    use minnow_nn::testing::ScratchDir;
    use std::path::PathBuf;

    /// A run checkpoint after 40 games of the four rows and four columns,
    /// 12 levels, in `dir`.
    fn saved_run(dir: &Path) -> PathBuf {
        let lines = (0..4).flat_map(|k| [vec![4 * k, 4 * k + 1, 4 * k + 2, 4 * k + 3], vec![k, k + 4, k + 8, k + 12]]);
        let eval = NTupleEvalConfig { every: 40, during: 1, last: 1, seed: 5, ..NTupleConfig::default().eval };
        let config = NTupleConfig {
            tuples: lines.collect(),
            levels: 12,
            games: 40,
            checkpoint_every: 40,
            eval,
            ..NTupleConfig::default()
        };
        let path = dir.join("run.safetensors");
        minnow_train::testing::checkpoint_after(NTupleRun::new(config).unwrap(), 40).rewrite(&[]).save(&path).unwrap();
        path
    }

    /// `path` rewritten with `edit` applied to its contents.
    fn edited(path: &Path, name: &str, edit: impl FnOnce(&Checkpoint) -> minnow_nn::CheckpointWriter) -> PathBuf {
        let out = path.with_file_name(name);
        edit(&Checkpoint::load(path).unwrap()).save(&out).unwrap();
        out
    }

    #[test]
    fn the_shipped_form_holds_the_same_tables_and_plays_the_same_moves() {
        let dir = ScratchDir::new("ntuple-agent");
        let run_path = saved_run(&dir);
        let agent_path = dir.join("agent.safetensors");
        let count = write_agent(&RunCheckpoint::read(&run_path, TASK).unwrap(), &agent_path).unwrap();
        let (dense, sparse) = (NTupleAgent::load(&run_path).unwrap(), NTupleAgent::load(&agent_path).unwrap());
        let (want, got) = (dense.player.net.weights(), sparse.player.net.weights());
        assert!(want.iter().zip(got).all(|(a, b)| a.to_bits() == b.to_bits()), "bit for bit");
        assert_eq!((sparse.games, &sparse.config), (40, &dense.config));
        let nonzero = want.iter().filter(|w| **w != 0.0).count();
        assert_eq!((count.kept, count.entries), (nonzero, 8 * 12usize.pow(4)));
        let size = |p: &Path| std::fs::metadata(p).unwrap().len();
        assert!(5 * size(&agent_path) < size(&run_path), "{} bytes of {}", size(&agent_path), size(&run_path));
        // Every move of 20 games, as both choose it.
        let mut env = Game2048::new(dense.config.env).unwrap();
        let mut moves = 0;
        for seed in 0..20 {
            env.reset(seed);
            while let Some((m, _, _)) = dense.player.best_move(env.board()) {
                assert_eq!(sparse.player.best_move(env.board()).map(|b| b.0), Some(m), "game {seed}, move {moves}");
                env.step(m).unwrap();
                moves += 1;
            }
            assert_eq!(sparse.player.best_move(env.board()), None);
        }
        assert!(moves > 1000, "{moves} moves");
        // Shipping a shipped agent again changes nothing.
        let again = dir.join("again.safetensors");
        assert_eq!(write_agent(&RunCheckpoint::read(&agent_path, TASK).unwrap(), &again).unwrap(), count);
        assert_eq!(NTupleAgent::load(&again).unwrap().player.net, sparse.player.net);
    }

    #[test]
    fn a_file_that_does_not_fit_is_refused_naming_what() {
        let dir = ScratchDir::new("ntuple-agent-bad");
        let run_path = saved_run(&dir);
        let agent = dir.join("agent.safetensors");
        write_agent(&RunCheckpoint::read(&run_path, TASK).unwrap(), &agent).unwrap();
        let err = |path: &Path| NTupleAgent::load(path).unwrap_err().to_string();

        let short = edited(&agent, "short.safetensors", |c| {
            let values = c.tensor(SPARSE_VALUES).unwrap();
            c.rewrite(&[SPARSE_VALUES]).tensor(SPARSE_VALUES, &[values.len() - 1], &values[1..])
        });
        let e = err(&short);
        assert!(e.contains("short.safetensors: restore 'ntuple.sparse.gaps': ") && e.ends_with("values"), "{e}");

        let neither = edited(&agent, "neither.safetensors", |c| c.rewrite(&[SPARSE_GAPS, SPARSE_VALUES]));
        let e = err(&neither);
        assert!(e.ends_with("expected the tables (ntuple.weights) or their sparse form (ntuple.sparse.gaps, U8, and ntuple.sparse.values, F32), one of the two"), "{e}");

        let both = edited(&agent, "both.safetensors", |c| c.rewrite(&[]).tensor(WEIGHTS, &[2], &[1.0, 2.0]));
        assert!(err(&both).contains("(ntuple.weights (found)) or"), "{}", err(&both));

        let gaps_as_f32 =
            edited(&agent, "f32.safetensors", |c| c.rewrite(&[SPARSE_GAPS]).tensor(SPARSE_GAPS, &[1], &[0.0]));
        assert!(err(&gaps_as_f32).contains("sparse form (ntuple.sparse.gaps, U8, and ntuple.sparse.values (found)"));

        // Tables of 4 levels are smaller than the form: it reaches past them.
        let fewer_levels = edited(&agent, "levels.safetensors", |c| {
            let config = c.meta("config").unwrap().replace("\"levels\":12", "\"levels\":4");
            c.rewrite(&["config"]).meta("config", config)
        });
        let e = err(&fewer_levels);
        assert!(
            e.contains("restore 'ntuple.sparse.gaps': entry ") && e.ends_with("leads past the 2048 weights"),
            "{e}"
        );

        let bad_config = edited(&agent, "config.safetensors", |c| {
            let config = c.meta("config").unwrap().replace("\"levels\":12", "\"levels\":40");
            c.rewrite(&["config"]).meta("config", config)
        });
        assert!(err(&bad_config).contains("checkpoint config: ntuple-2048.levels: expected 2..=16"));

        let other_task = edited(&agent, "task.safetensors", |c| c.rewrite(&["task"]).meta("task", "td-backgammon"));
        assert!(err(&other_task).contains("td-backgammon"), "{}", err(&other_task));

        let bytes = std::fs::read(&agent).unwrap();
        let truncated = dir.join("truncated.safetensors");
        std::fs::write(&truncated, &bytes[..bytes.len() - 3]).unwrap();
        assert!(err(&truncated).contains("not a readable checkpoint"), "{}", err(&truncated));
    }
}
