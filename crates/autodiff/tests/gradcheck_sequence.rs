//! The sequence ops (column slices and concatenation, time steps, stacking,
//! recurrent cells): gradients against central finite differences, forward
//! values against plain indexing, and shape errors.

use minnow_autodiff::{Graph, ParamId, Params, Result, Tape, Var};

mod common;
use common::Case;

#[test]
fn slice_cols_including_overlapping_slices_of_one_value() {
    for (start, len) in [(0, 7), (2, 3), (6, 1)] {
        let mut c = Case::new(1);
        let x = c.param("x", &[3, 7]);
        c.check(&format!("slice_cols {start}+{len}"), move |g| {
            let x = g.param(x);
            g.slice_cols(x, start, len)
        });
    }
    let mut c = Case::new(2);
    let x = c.param("x", &[3, 7]);
    c.check("two overlapping slices", move |g| {
        let x = g.param(x);
        let a = g.slice_cols(x, 0, 4)?;
        let b = g.slice_cols(x, 2, 4)?;
        g.mul(a, b)
    });
}

#[test]
fn concat_cols_of_one_to_four_inputs_and_a_repeated_one() {
    let dims: [&[usize]; 4] = [&[2, 3], &[2, 1], &[2, 4], &[2, 2]];
    for n in 1..=4 {
        let mut c = Case::new(3);
        let ids: Vec<ParamId> = (0..n).map(|i| c.param(&format!("x{i}"), dims[i])).collect();
        c.check(&format!("concat_cols of {n}"), move |g| {
            let vars: Vec<Var> = ids.iter().map(|&id| g.param(id)).collect();
            g.concat_cols(&vars)
        });
    }
    let mut c = Case::new(4);
    let (a, b) = (c.param("a", &[3, 2]), c.param("b", &[3, 5]));
    c.check("concat_cols(a, b, a)", move |g| {
        let (a, b) = (g.param(a), g.param(b));
        g.concat_cols(&[a, b, a])
    });
}

#[test]
fn time_steps_of_a_sequence() {
    for t in [0, 2, 3] {
        let mut c = Case::new(5);
        let x = c.param("x", &[2, 4, 3]);
        c.check(&format!("time_step {t}"), move |g| {
            let x = g.param(x);
            g.time_step(x, t)
        });
    }
    let mut c = Case::new(6);
    let x = c.param("x", &[3, 2, 5]);
    c.check("two steps of one sequence", move |g| {
        let x = g.param(x);
        let a = g.time_step(x, 0)?;
        let b = g.time_step(x, 1)?;
        g.mul(a, b)
    });
}

#[test]
fn stack_steps_of_short_and_long_sequences() {
    // 1 step is a reshape, 3 one concat, 6 and 20 a tree of concats.
    for steps in [1, 3, 6, 20] {
        let mut c = Case::new(7);
        let x = c.param("x", &[2, 3]);
        c.check(&format!("stack_steps of {steps}"), move |g| {
            let x = g.param(x);
            let hs: Vec<Var> = (0..steps).map(|t| g.scale(x, 0.5 + t as f32)).collect::<Result<_>>()?;
            g.stack_steps(&hs)
        });
    }
    let mut c = Case::new(8);
    let (a, b) = (c.param("a", &[2, 3]), c.param("b", &[2, 3]));
    c.check("stack_steps(a, b, a, a, b)", move |g| {
        let (a, b) = (g.param(a), g.param(b));
        let (a, b) = (g.tanh(a)?, g.tanh(b)?);
        g.stack_steps(&[a, b, a, a, b])
    });
}

#[test]
fn stacked_values_are_in_step_order() {
    let params = Params::new();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let (batch, hidden, steps) = (2, 3, 7);
    let hs: Vec<Var> = (0..steps)
        .map(|t| {
            let v: Vec<f32> = (0..batch * hidden).map(|i| (100 * t + i) as f32).collect();
            g.input(&[batch, hidden], &v).unwrap()
        })
        .collect();
    let y = g.stack_steps(&hs).unwrap();
    assert_eq!(g.shape(y).dims(), &[batch, steps, hidden]);
    let yv = g.value(y).to_vec();
    for b in 0..batch {
        for t in 0..steps {
            for j in 0..hidden {
                let expected = (100 * t + b * hidden + j) as f32;
                assert_eq!(yv[(b * steps + t) * hidden + j], expected);
            }
        }
    }
    let back = g.time_step(y, 4).unwrap();
    assert_eq!(g.value(back), g.value(hs[4]));
    let s = g.slice_cols(hs[1], 1, 2).unwrap();
    assert_eq!(g.value(s), &[101.0, 102.0, 104.0, 105.0]);
    let c = g.concat_cols(&[s, hs[0]]).unwrap();
    assert_eq!(g.value(c), &[101.0, 102.0, 0.0, 1.0, 2.0, 104.0, 105.0, 3.0, 4.0, 5.0]);
}

/// The three cells with per-row and broadcast hidden-side gates, with and
/// without a state.
#[test]
fn recurrent_cells() {
    type Cell = fn(&mut Graph<'_>, Var, usize, Var, Option<Var>) -> Result<Var>;
    let cells: [(&str, usize, usize, Cell); 3] = [
        ("rnn_cell", 1, 1, |g, gx, t, gh, _| g.rnn_cell(gx, t, gh)),
        ("lstm_cell", 4, 2, |g, gx, t, gh, s| g.lstm_cell(gx, t, gh, s)),
        ("gru_cell", 3, 1, |g, gx, t, gh, s| g.gru_cell(gx, t, gh, s)),
    ];
    let (batch, steps, hidden) = (3, 4, 5);
    for (name, gates, state_width, cell) in cells {
        for (broadcast, with_state) in [(false, true), (true, false), (false, false)] {
            let mut c = Case::new(9);
            let gx = c.param("gx", &[batch, steps, gates * hidden]);
            let gh = if broadcast { c.param("gh", &[gates * hidden]) } else { c.param("gh", &[batch, gates * hidden]) };
            let s = c.param("s", &[batch, state_width * hidden]);
            let label = format!("{name} broadcast={broadcast} state={with_state}");
            c.check(&label, move |g| {
                let (gx, gh, s) = (g.param(gx), g.param(gh), g.param(s));
                cell(g, gx, 2, gh, with_state.then_some(s))
            });
        }
    }
}

/// Two steps chained through a hidden-side linear, as the layers unroll
/// them: backward through time.
#[test]
fn cells_unrolled_over_two_steps() {
    let (batch, steps, hidden) = (2, 3, 4);
    for (name, gates) in [("rnn", 1), ("lstm", 4), ("gru", 3)] {
        let mut c = Case::new(10);
        let gx = c.param("gx", &[batch, steps, gates * hidden]);
        let w = c.param("w", &[gates * hidden, hidden]);
        let b = c.param("b", &[gates * hidden]);
        c.check(name, move |g| {
            let (gx, w, b) = (g.param(gx), g.param(w), g.param(b));
            let mut s = match name {
                "rnn" => g.rnn_cell(gx, 0, b)?,
                "lstm" => g.lstm_cell(gx, 0, b, None)?,
                _ => g.gru_cell(gx, 0, b, None)?,
            };
            for t in 1..steps {
                let h = if name == "lstm" { g.slice_cols(s, 0, hidden)? } else { s };
                let gh = g.linear(h, w, Some(b))?;
                s = match name {
                    "rnn" => g.rnn_cell(gx, t, gh)?,
                    "lstm" => g.lstm_cell(gx, t, gh, Some(s))?,
                    _ => g.gru_cell(gx, t, gh, Some(s))?,
                };
            }
            Ok(s)
        });
    }
}

fn error_of(f: impl FnOnce(&mut Graph<'_>) -> Result<Var>) -> String {
    let params = Params::new();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    f(&mut g).map(|_| ()).unwrap_err().to_string()
}

#[test]
fn bad_shapes_are_errors_naming_them() {
    let zeros = vec![0.0; 64];
    let m = |g: &mut Graph<'_>, dims: &[usize]| {
        let n = dims.iter().product();
        g.input(dims, &zeros[..n]).unwrap()
    };
    assert_eq!(
        error_of(|g| {
            let x = m(g, &[4, 10]);
            g.slice_cols(x, 8, 4)
        }),
        "slice_cols: shapes [4, 10] and [4, 12] do not match"
    );
    assert_eq!(
        error_of(|g| {
            let x = m(g, &[2, 3, 4]);
            g.slice_cols(x, 0, 1)
        }),
        "slice_cols: expected a rank-2 tensor, found shape [2, 3, 4]"
    );
    assert_eq!(
        error_of(|g| {
            let (a, b) = (m(g, &[2, 3]), m(g, &[3, 3]));
            g.concat_cols(&[a, b])
        }),
        "concat_cols: shapes [2, 3] and [3, 3] do not match"
    );
    assert!(error_of(|g| g.concat_cols(&[])).contains("1 to 4 inputs, found 0"));
    assert_eq!(
        error_of(|g| {
            let x = m(g, &[2, 3, 4]);
            g.time_step(x, 3)
        }),
        "time_step: index 3 out of range for 3"
    );
    assert_eq!(
        error_of(|g| {
            let x = m(g, &[2, 12]);
            g.time_step(x, 0)
        }),
        "time_step: expected a rank-3 tensor, found shape [2, 12]"
    );
    assert_eq!(
        error_of(|g| {
            let (a, b) = (m(g, &[2, 3]), m(g, &[2, 4]));
            g.stack_steps(&[a, b])
        }),
        "stack_steps: shapes [2, 3] and [2, 4] do not match"
    );
    assert!(error_of(|g| g.stack_steps(&[])).contains("at least one step"));
    assert!(
        error_of(|g| {
            let (gx, gh) = (m(g, &[2, 3, 6]), m(g, &[6]));
            g.lstm_cell(gx, 0, gh, None)
        })
        .contains("gx [2, 3, 6] must end in 4 gates")
    );
    assert_eq!(
        error_of(|g| {
            let (gx, gh) = (m(g, &[2, 3, 8]), m(g, &[3, 8]));
            g.lstm_cell(gx, 0, gh, None)
        }),
        "lstm_cell: shapes [2, 8] and [3, 8] do not match"
    );
    assert_eq!(
        error_of(|g| {
            let (gx, gh, s) = (m(g, &[2, 3, 6]), m(g, &[6]), m(g, &[2, 4]));
            g.gru_cell(gx, 1, gh, Some(s))
        }),
        "gru_cell: shapes [2, 2] and [2, 4] do not match"
    );
    assert_eq!(
        error_of(|g| {
            let (gx, gh) = (m(g, &[2, 3, 2]), m(g, &[2]));
            g.rnn_cell(gx, 3, gh)
        }),
        "rnn_cell: index 3 out of range for 3"
    );
}
