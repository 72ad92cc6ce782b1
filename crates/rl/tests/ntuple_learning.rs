//! TD(0) on an n-tuple network with temporal coherence and with several
//! stages: the step sizes TC adapts, its sums read back, each stage's
//! tables learning apart.

use minnow_rl::SavedState;
use minnow_rl::ntuple::{NTupleNetwork, TdLearner};

#[test]
fn temporal_coherence_steps_fully_at_first_and_slows_where_errors_cancel() {
    let mut net = NTupleNetwork::new(1, 4, &[vec![vec![0]]]).unwrap();
    let mut td = TdLearner::coherent(0.5, &net);
    // First update of entry 1: A = 0, so the rate is 1: V(1) += 0.5 * (2 - 0).
    td.step(&mut net, &[1], 0.0);
    td.step(&mut net, &[2], 2.0);
    assert_eq!(net.value(&[1]), 1.0);
    let (errors, magnitudes) = td.coherence().unwrap();
    assert_eq!((errors[1], magnitudes[1]), (2.0, 2.0));
    // An error of the other sign: rate |E| / A = 1 still (E, A before it),
    // then E = 2 - 3 = -1, A = 5: the next rate is 1/5.
    td.finish(&mut net);
    td.step(&mut net, &[1], 0.0);
    td.step(&mut net, &[3], -2.0); // error -2 + 0 - 1 = -3
    assert_eq!(net.value(&[1]), 1.0 - 1.5);
    td.step(&mut net, &[1], 0.0); // updates entry 3 (first time), not entry 1
    td.step(&mut net, &[2], 1.0); // entry 1: error 1 + 0 - (-0.5) = 1.5, rate 1/5
    assert!((net.value(&[1]) - (-0.5 + 0.5 * 0.2 * 1.5)).abs() < 1e-6, "{}", net.value(&[1]));
}

#[test]
fn without_coherence_the_learner_has_no_sums_and_refuses_them() {
    let net = NTupleNetwork::new(2, 4, &[vec![vec![0, 1]]]).unwrap();
    let mut td = TdLearner::new(0.1);
    assert!(td.coherence().is_none());
    let state = SavedState::new();
    let err = td.restore_coherence(&state, "e", "a").unwrap_err().to_string();
    assert!(err.contains("no temporal coherence"), "{err}");
    let _ = net;
}

#[test]
fn coherence_sums_restore_exactly_and_refuse_what_does_not_fit() {
    let mut net = NTupleNetwork::new(2, 4, &[vec![vec![0, 1]]]).unwrap();
    let mut td = TdLearner::coherent(0.3, &net);
    for k in 0..40u8 {
        td.step(&mut net, &[k % 4, (k / 4) % 4], (k % 3) as f32);
    }
    td.finish(&mut net);
    let (errors, magnitudes) = td.coherence().unwrap();
    let mut state = SavedState::new();
    state.push_array("e".into(), &[16], errors.to_vec());
    state.push_array("a".into(), &[16], magnitudes.to_vec());
    state.push_array("short".into(), &[3], vec![0.0; 3]);
    state.push_array("negative".into(), &[16], vec![-1.0; 16]);
    let mut back = TdLearner::coherent(0.3, &net);
    back.restore_coherence(&state, "e", "a").unwrap();
    assert_eq!(back.coherence(), td.coherence());
    let fresh = TdLearner::coherent(0.3, &net);
    let mut refused = fresh.clone();
    assert!(refused.restore_coherence(&state, "short", "a").unwrap_err().to_string().contains("3 sums"));
    assert!(refused.restore_coherence(&state, "e", "negative").unwrap_err().to_string().contains(">= 0"));
    assert!(refused.restore_coherence(&state, "e", "missing").is_err());
    assert_eq!(refused, fresh, "a failed restore changes nothing");
}

#[test]
fn each_stage_has_its_own_tables() {
    let mut net = NTupleNetwork::staged(2, 4, &[vec![vec![0, 1]]], 3).unwrap();
    assert_eq!((net.stages(), net.weights().len()), (3, 48));
    let mut td = TdLearner::new(1.0);
    // Afterstate [1, 2] in stage 0, then [1, 2] in stage 2 with reward 5:
    // stage 0's entry learns 5, stage 2's is untouched until its own update.
    td.staged_step(&mut net, 0, &[1, 2], 0.0);
    td.staged_step(&mut net, 2, &[1, 2], 5.0);
    assert_eq!((net.staged_value(0, &[1, 2]), net.staged_value(2, &[1, 2])), (5.0, 0.0));
    td.finish(&mut net);
    assert_eq!(net.staged_value(1, &[1, 2]), 0.0);
    assert!(NTupleNetwork::staged(2, 4, &[vec![vec![0, 1]]], 0).unwrap_err().to_string().contains("stages"));
}
