//! A logic CA's kept circuit growing its pattern from a random grid:
//! channel 0 of every step as rows of '0' and '1', small enough to send
//! whole and draw frame by frame.

use crate::agents::checkpoint_file;
use crate::error::{ApiError, ApiResult};
use crate::input;
use crate::search::on_blocking_pool;
use crate::state::AppState;
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use minnow_logic::Prune;
use minnow_logic::checkpoint::kept_program;
use minnow_logic::robustness::{Disturbance, HardRollout};
use minnow_train::{RunCheckpoint, TrainError};
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// The task whose runs hold a circuit.
const TASK: &str = "logic-ca";
/// The most steps one request rolls out.
pub const MAX_STEPS: u32 = 500;
/// The largest grid side.
pub const MAX_SIDE: u32 = 128;

/// `GET /api/logic-ca/frames?run=DIR&seed=N&steps=N&side=N`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FramesQuery {
    /// A logic-ca run directory or checkpoint; default the shipped circuit.
    run: Option<String>,
    /// The random start grid's seed.
    #[serde(default)]
    seed: u64,
    /// Steps to roll out (default: the run's ca_steps).
    steps: Option<i64>,
    /// The grid's height and width (default: the run's).
    side: Option<i64>,
}

/// The rollout.
#[derive(Debug, Serialize)]
pub struct Frames {
    /// Where the circuit came from.
    source: String,
    height: usize,
    width: usize,
    /// The steps the circuit was trained to reach its pattern in.
    trained_steps: usize,
    /// Frame 0 is the random start; each frame is rows of '0'/'1'.
    frames: Vec<Vec<String>>,
}

pub async fn frames(
    State(state): State<Arc<AppState>>,
    query: Result<Query<FramesQuery>, QueryRejection>,
) -> ApiResult<Json<Frames>> {
    let query = input::query(query)?;
    let path = match query.run.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
        Some(run) => checkpoint_file(&PathBuf::from(run)),
        None => state.logic_ca.clone(),
    };
    if !path.is_file() {
        return Err(ApiError::missing(format!("no logic-ca checkpoint at {}", path.display())));
    }
    let steps = query.steps.map(|s| input::bounded("steps", Some(s), 1, MAX_STEPS)).transpose()?;
    let side = query.side.map(|s| input::bounded("side", Some(s), 1, MAX_SIDE)).transpose()?;
    let frames = on_blocking_pool(&state.searches, move |_| {
        let run = RunCheckpoint::read(&path, TASK).map_err(|e| match e {
            TrainError::WrongTask { saved, .. } => ApiError::refused(format!(
                "{}: a run of task {saved}, expected a {TASK} run (its circuit grows the pattern)",
                path.display()
            )),
            e => ApiError::refused(format!("{}: {e}", path.display())),
        })?;
        let (config, program) =
            kept_program(&run, Prune::Channel0).map_err(|e| ApiError::refused(format!("{}: {e}", path.display())))?;
        let height = side.map_or(config.ca.height, |s| s as usize);
        let width = side.map_or(config.ca.width, |s| s as usize);
        let steps = steps.map_or(config.ca_steps, |s| s as usize);
        let mut rollout = HardRollout::new(&program, height, width);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(query.seed);
        rollout.start(&mut rng);
        let rows = |rollout: &HardRollout| -> Vec<String> {
            let grid = rollout.grid();
            (0..height).map(|r| (0..width).map(|c| if grid.get(0, r, c) { '1' } else { '0' }).collect()).collect()
        };
        let mut frames = vec![rows(&rollout)];
        for t in 0..steps {
            rollout.step(&program, t, Disturbance::None, &mut rng);
            frames.push(rows(&rollout));
        }
        Ok(Frames { source: path.display().to_string(), height, width, trained_steps: config.ca_steps, frames })
    })
    .await?;
    Ok(Json(frames))
}
