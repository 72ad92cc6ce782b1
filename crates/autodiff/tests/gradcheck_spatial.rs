//! The spatial family (conv2d, max_pool2d, batch_norm, dropout, embedding,
//! gelu, reshape): gradients against central finite differences, forwards
//! against direct loops, and the errors callers can hit.

use minnow_autodiff::{Error, Params, Tape};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_pcg::Pcg64Mcg;

mod common;
use common::{Case, values};

/// x dims, w dims, stride, padding, bias.
type ConvCase = ([usize; 4], [usize; 4], usize, usize, bool);

#[test]
fn conv2d_strides_paddings_and_bias() {
    let cases: [ConvCase; 6] = [
        ([2, 3, 5, 6], [4, 3, 3, 3], 1, 0, true),
        ([2, 3, 5, 6], [4, 3, 3, 3], 1, 1, true),
        ([2, 3, 5, 6], [4, 3, 3, 3], 2, 1, false),
        ([2, 3, 5, 6], [4, 3, 3, 3], 2, 0, true),
        ([1, 2, 4, 5], [3, 2, 2, 3], 2, 1, true),
        ([3, 1, 3, 3], [2, 1, 3, 3], 1, 2, true),
    ];
    for (i, (xd, wd, stride, padding, bias)) in cases.into_iter().enumerate() {
        let mut c = Case::new(100 + i as u64).linear();
        let (x, w, b) = (c.param("x", &xd), c.param("w", &wd), c.param("b", &[wd[0]]));
        c.check(&format!("conv2d x{xd:?} w{wd:?} s{stride} p{padding} bias={bias}"), move |g| {
            let (x, w, b) = (g.param(x), g.param(w), g.param(b));
            g.conv2d(x, w, bias.then_some(b), stride, padding)
        });
    }
}

#[test]
fn conv2d_of_data_trains_only_the_weights() {
    let mut c = Case::new(110).linear();
    let image = c.data(2 * 2 * 4 * 4);
    let (w, b) = (c.param("w", &[3, 2, 3, 3]), c.param("b", &[3]));
    c.check("conv2d on an input", move |g| {
        let x = g.input(&[2, 2, 4, 4], &image)?;
        let (w, b) = (g.param(w), g.param(b));
        g.conv2d(x, w, Some(b), 1, 1)
    });
}

/// Distinct values `gap` apart, centred on 0: a finite-difference step
/// below gap / 2 never changes which cell of a window is the largest.
fn separated(rng: &mut Pcg64Mcg, n: usize, gap: f32) -> Vec<f32> {
    let mut v: Vec<f32> = (0..n).map(|i| gap * (i as f32 - n as f32 / 2.0)).collect();
    v.shuffle(rng);
    v
}

#[test]
fn max_pool2d_routes_to_the_argmax() {
    let mut c = Case::new(120);
    let v = separated(&mut c.rng, 2 * 2 * 5 * 4, 0.05);
    let x = c.param_with("x", &[2, 2, 5, 4], &v);
    c.check("max_pool2d", move |g| {
        let x = g.param(x);
        g.max_pool2d(x)
    });
}

#[test]
fn batch_norm_training_and_eval_forms() {
    for training in [true, false] {
        let mut c = Case::new(130);
        let (x, gamma, beta) = (c.param("x", &[6, 5]), c.param("gamma", &[5]), c.param("beta", &[5]));
        let mean = c.params.add_buffer("mean", &[5], |v| v.copy_from_slice(&[0.1, -0.2, 0.3, 0.0, 0.5])).unwrap();
        let var = c.params.add_buffer("var", &[5], |v| v.copy_from_slice(&[1.0, 0.5, 2.0, 1.5, 0.7])).unwrap();
        c.check(&format!("batch_norm training={training}"), move |g| {
            let (x, gamma, beta) = (g.param(x), g.param(gamma), g.param(beta));
            g.batch_norm(x, mean, var, gamma, beta, training, 0.1, 1e-5)
        });
    }
}

#[test]
fn dropout_with_a_fixed_mask() {
    let mut c = Case::new(140);
    let x = c.param("x", &[5, 7]);
    c.check("dropout", move |g| {
        let x = g.param(x);
        g.dropout(x, 0.3, 77)
    });
}

#[test]
fn embedding_with_repeated_indices() {
    let mut c = Case::new(150);
    let w = c.param("w", &[6, 4]);
    c.check("embedding", move |g| {
        let w = g.param(w);
        g.embedding(w, &[5, 0, 2, 2, 5, 1, 5])
    });
}

#[test]
fn gelu_over_a_wide_range() {
    let mut c = Case::new(160);
    let v: Vec<f32> = (0..36).map(|i| -4.0 + 8.0 * i as f32 / 35.0).collect();
    let x = c.param_with("x", &[4, 9], &v);
    c.check("gelu", move |g| {
        let x = g.param(x);
        g.gelu(x)
    });
}

#[test]
fn reshape_of_parameters_and_of_op_outputs() {
    let mut c = Case::new(170);
    let (x, w) = (c.param("x", &[2, 3, 4]), c.param("w", &[5, 12]));
    c.check("reshape", move |g| {
        let (x, w) = (g.param(x), g.param(w));
        let flat = g.reshape(x, &[2, 12])?;
        let y = g.gelu(flat)?;
        let cube = g.reshape(y, &[2, 3, 4])?;
        let back = g.reshape(cube, &[2, 12])?;
        g.linear(back, w, None)
    });
}

#[test]
fn a_small_cnn_end_to_end() {
    let mut c = Case::new(180);
    // Batch statistics over a few rows curve the loss strongly: at h = 1e-2
    // the worst difference is 1.5% off, at 5e-3 a quarter of that (so it is
    // truncation error, not a wrong gradient). At 2.5e-3 it is within
    // tolerance, and the loss (order 1) keeps its f32 rounding / 2h near
    // 5e-5.
    c.h = 2.5e-3;
    let v = separated(&mut c.rng, 8 * 36, 0.02);
    let x = c.param_with("x", &[8, 1, 6, 6], &v);
    let (w1, b1) = (c.param("w1", &[3, 1, 3, 3]), c.param("b1", &[3]));
    let (w2, b2) = (c.param("w2", &[4, 27]), c.param("b2", &[4]));
    let (gamma, beta) = (c.param("gamma", &[27]), c.param("beta", &[27]));
    let mean = c.params.add_buffer("mean", &[27], |v| v.fill(0.0)).unwrap();
    let var = c.params.add_buffer("var", &[27], |v| v.fill(1.0)).unwrap();
    c.check("cnn", move |g| {
        let x = g.param(x);
        let (w1, b1, w2, b2) = (g.param(w1), g.param(b1), g.param(w2), g.param(b2));
        let (gamma, beta) = (g.param(gamma), g.param(beta));
        // Pooling first, on well-separated values: no finite-difference
        // step can change a window's winner.
        let h = g.max_pool2d(x)?;
        let h = g.conv2d(h, w1, Some(b1), 1, 1)?;
        let h = g.gelu(h)?;
        let h = g.reshape(h, &[8, 27])?;
        let h = g.batch_norm(h, mean, var, gamma, beta, true, 0.1, 1e-5)?;
        let h = g.dropout(h, 0.25, 5)?;
        let logits = g.linear(h, w2, Some(b2))?;
        let loss = g.cross_entropy(logits, &[0, 3, 1, 2, 2, 1, 0, 3], None)?;
        g.reshape(loss, &[1])
    });
}

/// y[n, o, oh, ow] = b[o] + Σ w[o, c, i, j] x[n, c, oh s + i - p, ow s + j - p].
fn direct_conv(x: &[f32], xd: [usize; 4], w: &[f32], wd: [usize; 4], b: &[f32], s: usize, p: usize) -> Vec<f32> {
    let ([n, c, h, wi], [o, _, kh, kw]) = (xd, wd);
    let (ho, wo) = ((h + 2 * p - kh) / s + 1, (wi + 2 * p - kw) / s + 1);
    let mut y = vec![0.0f32; n * o * ho * wo];
    for ni in 0..n {
        for oi in 0..o {
            for oh in 0..ho {
                for ow in 0..wo {
                    let mut acc = b[oi] as f64;
                    for ci in 0..c {
                        for i in 0..kh {
                            for j in 0..kw {
                                let (ih, iw) = ((oh * s + i) as isize - p as isize, (ow * s + j) as isize - p as isize);
                                if ih < 0 || iw < 0 || ih >= h as isize || iw >= wi as isize {
                                    continue;
                                }
                                let xv = x[((ni * c + ci) * h + ih as usize) * wi + iw as usize];
                                acc += (w[((oi * c + ci) * kh + i) * kw + j] * xv) as f64;
                            }
                        }
                    }
                    y[((ni * o + oi) * ho + oh) * wo + ow] = acc as f32;
                }
            }
        }
    }
    y
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn conv2d_matches_a_direct_loop(
        n in 1usize..3, c in 1usize..4, o in 1usize..5,
        h in 1usize..9, w in 1usize..9, kh in 1usize..4, kw in 1usize..4,
        stride in 1usize..4, padding in 0usize..3, seed in 0u64..1000,
    ) {
        prop_assume!(kh <= h + 2 * padding && kw <= w + 2 * padding);
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let (xd, wd) = ([n, c, h, w], [o, c, kh, kw]);
        let xv = values(&mut rng, n * c * h * w);
        let wv = values(&mut rng, o * c * kh * kw);
        let bv = values(&mut rng, o);
        let want = direct_conv(&xv, xd, &wv, wd, &bv, stride, padding);
        let params = Params::new();
        let mut tape = Tape::new();
        let mut g = tape.inference(&params);
        let (x, wt, b) = (g.input(&xd, &xv).unwrap(), g.input(&wd, &wv).unwrap(), g.input(&[o], &bv).unwrap());
        let y = g.conv2d(x, wt, Some(b), stride, padding).unwrap();
        let got = g.value(y);
        prop_assert_eq!(got.len(), want.len());
        for (i, (a, e)) in got.iter().zip(&want).enumerate() {
            prop_assert!((a - e).abs() <= 1e-5 + 1e-5 * e.abs(), "element {}: {} vs {}", i, a, e);
        }
    }
}

#[test]
fn max_pool2d_forward_drops_odd_edges_and_prefers_the_first_maximum() {
    let params = Params::new();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    #[rustfmt::skip]
    let x = g.input(&[1, 1, 3, 5], &[
        1.0, 5.0, 2.0, 2.0, 9.0,
        3.0, 4.0, 2.0, 0.0, 9.0,
        9.0, 9.0, 9.0, 9.0, 9.0,
    ]).unwrap();
    let y = g.max_pool2d(x).unwrap();
    assert_eq!(g.shape(y).dims(), &[1, 1, 1, 2]);
    assert_eq!(g.value(y), &[5.0, 2.0]);
}

#[test]
fn batch_norm_updates_running_statistics_like_pytorch() {
    // x [4, 2]: channel 0 is 1, 2, 3, 4 (mean 2.5, biased var 1.25,
    // unbiased 5/3); channel 1 is constant 2 (var 0).
    let mut params = Params::new();
    let gamma = params.add("gamma", &[2], |v| v.fill(1.0)).unwrap();
    let beta = params.add("beta", &[2], |v| v.fill(0.0)).unwrap();
    let mean_id = params.add_buffer("mean", &[2], |v| v.fill(0.0)).unwrap();
    let var_id = params.add_buffer("var", &[2], |v| v.fill(1.0)).unwrap();
    let mut tape = Tape::new();
    let mut g = tape.graph(&mut params);
    let x = g.input(&[4, 2], &[1.0, 2.0, 2.0, 2.0, 3.0, 2.0, 4.0, 2.0]).unwrap();
    let (gv, bv) = (g.param(gamma), g.param(beta));
    let y = g.batch_norm(x, mean_id, var_id, gv, bv, true, 0.1, 1e-5).unwrap();
    let (mean, var) = (g.params().buffer(mean_id).to_vec(), g.params().buffer(var_id).to_vec());
    let close = |a: f32, b: f32| (a - b).abs() < 1e-6;
    assert!(close(mean[0], 0.25) && close(mean[1], 0.2), "{mean:?}");
    assert!(close(var[0], 0.9 + 0.1 * 5.0 / 3.0) && close(var[1], 0.9), "{var:?}");
    let rstd = 1.0 / (1.25f32 + 1e-5).sqrt();
    assert!(close(g.value(y)[0], -1.5 * rstd) && close(g.value(y)[1], 0.0));
    // Evaluation reads the running statistics and leaves them alone.
    let y = g.batch_norm(x, mean_id, var_id, gv, bv, false, 0.1, 1e-5).unwrap();
    assert_eq!((g.params().buffer(mean_id), g.params().buffer(var_id)), (&mean[..], &var[..]));
    assert!(close(g.value(y)[0], (1.0 - 0.25) / (var[0] + 1e-5).sqrt()));
    // An inference graph may evaluate, but not train: it cannot write them.
    let mut g = tape.inference(&params);
    let x = g.input(&[2, 2], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    let (gv, bv) = (g.param(gamma), g.param(beta));
    assert!(g.batch_norm(x, mean_id, var_id, gv, bv, false, 0.1, 1e-5).is_ok());
    let err = g.batch_norm(x, mean_id, var_id, gv, bv, true, 0.1, 1e-5).unwrap_err().to_string();
    assert!(err.contains("an inference graph cannot write"), "{err}");
}

#[test]
fn dropout_is_reproducible_and_scales_what_it_keeps() {
    let params = Params::new();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let ones = vec![1.0f32; 10_000];
    let x = g.input(&[100, 100], &ones).unwrap();
    let a = g.dropout(x, 0.25, 9).unwrap();
    let b = g.dropout(x, 0.25, 9).unwrap();
    let c = g.dropout(x, 0.25, 10).unwrap();
    assert_eq!(g.value(a), g.value(b));
    assert_ne!(g.value(a), g.value(c));
    let kept = g.value(a).iter().filter(|&&v| v != 0.0).count();
    assert!((7300..7700).contains(&kept), "kept {kept} of 10000 at p = 0.25");
    assert!(g.value(a).iter().all(|&v| v == 0.0 || (v - 4.0 / 3.0).abs() < 1e-6));
    assert_eq!(g.dropout(x, 0.0, 1).unwrap(), x);
    for bad in [-0.1, 1.0, f32::NAN] {
        assert!(matches!(g.dropout(x, bad, 1), Err(Error::Config(_))), "p = {bad}");
    }
}

#[test]
fn a_seeded_graph_streams_seeds_that_replay() {
    let params = Params::new();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    assert!(matches!(g.next_seed(), Err(Error::Config(_))), "an unseeded graph has no stream");
    g.set_seed(7);
    let first = [g.next_seed().unwrap(), g.next_seed().unwrap()];
    assert_ne!(first[0], first[1]);
    g.set_seed(7);
    assert_eq!([g.next_seed().unwrap(), g.next_seed().unwrap()], first);
    g.set_seed(8);
    assert_ne!(g.next_seed().unwrap(), first[0]);
}

#[test]
fn errors_name_the_problem() {
    let mut params = Params::new();
    let w = params.add("w", &[4, 3], |v| v.fill(0.5)).unwrap();
    let (mean, var) =
        (params.add_buffer("mean", &[3], |_| {}).unwrap(), params.add_buffer("var", &[3], |v| v.fill(1.0)).unwrap());
    let mut tape = Tape::new();
    let mut g = tape.graph(&mut params);
    let w = g.param(w);
    assert_eq!(g.embedding(w, &[1, 4]).unwrap_err(), Error::IndexOutOfRange { op: "embedding", index: 4, bound: 4 });
    let x = g.input(&[1, 2, 3, 3], &[0.0; 18]).unwrap();
    let k = g.input(&[5, 2, 4, 4], &[0.0; 160]).unwrap();
    let err = g.conv2d(x, k, None, 1, 0).unwrap_err().to_string();
    assert_eq!(
        err,
        "invalid configuration: conv2d: kernel 4x4 is larger than the padded input 3x3 (input 3x3, padding 0)"
    );
    assert!(g.conv2d(x, k, None, 1, 1).is_ok());
    assert!(matches!(g.conv2d(x, k, None, 0, 1), Err(Error::Config(_))));
    let wrong_channels = g.input(&[5, 3, 1, 1], &[0.0; 15]).unwrap();
    assert!(matches!(g.conv2d(x, wrong_channels, None, 1, 0), Err(Error::Shape(_))));
    assert!(matches!(g.reshape(x, &[19]), Err(Error::Shape(_))));
    let tiny = g.input(&[1, 1, 1, 4], &[0.0; 4]).unwrap();
    assert!(matches!(g.max_pool2d(tiny), Err(Error::Config(_))));
    let rows = g.input(&[1, 3], &[0.0; 3]).unwrap();
    let (gamma, beta) = (g.input(&[3], &[1.0; 3]).unwrap(), g.input(&[3], &[0.0; 3]).unwrap());
    let err = g.batch_norm(rows, mean, var, gamma, beta, true, 0.1, 1e-5).unwrap_err().to_string();
    assert_eq!(
        err,
        "invalid configuration: batch_norm: training needs more than one value per channel, found a batch of 1"
    );
    assert!(g.batch_norm(rows, mean, var, gamma, beta, false, 0.1, 1e-5).is_ok());
}
