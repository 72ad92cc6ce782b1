//! A target grid in place of the checkerboard: the step reports measure
//! it, and bad targets are clear errors.

use minnow_logic::{CheckerboardConfig, LogicError, PatternTrainer, RepairConfig, checkerboard};

fn config() -> CheckerboardConfig {
    CheckerboardConfig {
        ca_steps: 4,
        repair: RepairConfig { every: 0, ..RepairConfig::default() },
        ..CheckerboardConfig::default()
    }
}

#[test]
fn reports_measure_the_target_grid() {
    let config = config();
    let cells = config.ca.cells();
    let total = config.batch * cells;
    let board = checkerboard(config.ca.height, config.ca.width);
    let inverted: Vec<f32> = board.iter().map(|v| 1.0 - v).collect();
    let first_report = |target: Option<&[f32]>| {
        let mut trainer = PatternTrainer::new(&config).unwrap();
        if let Some(t) = target {
            trainer.set_target(t).unwrap();
        }
        trainer.step().unwrap()
    };
    let default = first_report(None);
    // The checkerboard as a target grid is the default task.
    assert_eq!(first_report(Some(&board)), default);
    // Same grids, same circuit: every cell right against one is wrong against the other.
    let flipped = first_report(Some(&inverted));
    assert_eq!(flipped.hard_errors, total - default.hard_errors);
    assert_ne!(flipped.loss, default.loss);
}

#[test]
fn bad_targets_are_clear_errors() {
    let config = config();
    let cells = config.ca.cells();
    let mut trainer = PatternTrainer::new(&config).unwrap();
    let err = trainer.set_target(&vec![0.0; cells - 1]).unwrap_err();
    assert!(
        matches!(err, LogicError::DataLength { expected, found, .. } if expected == cells && found == cells - 1),
        "{err}"
    );
    let mut grey = vec![0.0; cells];
    grey[3] = 0.5;
    let err = trainer.set_target(&grey).unwrap_err().to_string();
    assert!(err.contains("0 or 1") && err.contains("0.5"), "{err}");

    let mut repaired =
        PatternTrainer::new(&CheckerboardConfig { ca_steps: 4, ..CheckerboardConfig::default() }).unwrap();
    let err = repaired.set_target(&vec![0.0; cells]).unwrap_err().to_string();
    assert!(err.contains("repair.every"), "{err}");

    let life = CheckerboardConfig {
        repair: RepairConfig { every: 0, ..RepairConfig::default() },
        ..CheckerboardConfig::game_of_life()
    };
    let mut life = PatternTrainer::new(&life).unwrap();
    let err = life.set_target(&[0.0; 9]).unwrap_err().to_string();
    assert!(err.contains("game-of-life"), "{err}");
}
