//! Every op's gradient against central finite differences.

use minnow_autodiff::{CustomOp, Graph, Params, Result, Tape, Var};
use minnow_tensor::Shape;

/// A graph builder returning a scalar loss.
type LossFn<'a> = dyn Fn(&mut Graph<'_>) -> Result<Var> + 'a;

mod common;
use common::Case;

#[test]
fn linear_with_and_without_bias_and_relu() {
    for (bias, relu) in [(true, false), (false, false), (true, true), (false, true)] {
        let mut c = Case::new(1);
        let (x, w, b) = (c.param("x", &[5, 7]), c.param("w", &[3, 7]), c.param("b", &[3]));
        c.check(&format!("linear bias={bias} relu={relu}"), move |g| {
            let (x, w, b) = (g.param(x), g.param(w), g.param(b));
            let b = bias.then_some(b);
            if relu { g.linear_relu(x, w, b) } else { g.linear(x, w, b) }
        });
    }
}

#[test]
fn matmul() {
    let mut c = Case::new(2);
    let (a, b) = (c.param("a", &[4, 6]), c.param("b", &[6, 3]));
    c.check("matmul", move |g| {
        let (a, b) = (g.param(a), g.param(b));
        g.matmul(a, b)
    });
}

#[test]
fn binary_ops_including_a_value_used_twice() {
    type Op = fn(&mut Graph<'_>, Var, Var) -> Result<Var>;
    let ops: [(&str, Op); 4] = [
        ("add", |g, a, b| g.add(a, b)),
        ("add_relu", |g, a, b| g.add_relu(a, b)),
        ("sub", |g, a, b| g.sub(a, b)),
        ("mul", |g, a, b| g.mul(a, b)),
    ];
    for (name, op) in ops {
        let mut c = Case::new(3);
        let (a, b) = (c.param("a", &[3, 5]), c.param("b", &[3, 5]));
        c.check(name, move |g| {
            let (a, b) = (g.param(a), g.param(b));
            op(g, a, b)
        });
        let mut c = Case::new(4);
        let a = c.param("a", &[2, 3]);
        c.check(&format!("{name}(a, a)"), move |g| {
            let a = g.param(a);
            op(g, a, a)
        });
    }
}

#[test]
fn scale_copy_sum_mean() {
    let mut c = Case::new(5);
    let a = c.param("a", &[3, 4]);
    c.check("scale", move |g| {
        let a = g.param(a);
        g.scale(a, -1.7)
    });
    let mut c = Case::new(6);
    let a = c.param("a", &[3, 4]);
    c.check("sum", move |g| {
        let a = g.param(a);
        let s = g.sum(a)?;
        let m = g.mean(a)?;
        let c = g.copy(s);
        g.add(c, m)
    });
}

#[test]
fn activations() {
    type Op = fn(&mut Graph<'_>, Var) -> Result<Var>;
    let ops: [(&str, Op); 6] = [
        ("relu", |g, x| g.relu(x)),
        ("leaky_relu", |g, x| g.leaky_relu(x, 0.1)),
        ("sigmoid", |g, x| g.sigmoid(x)),
        ("tanh", |g, x| g.tanh(x)),
        ("softmax", |g, x| g.softmax(x)),
        ("log_softmax", |g, x| g.log_softmax(x)),
    ];
    for (name, op) in ops {
        let mut c = Case::new(7);
        let x = c.param("x", &[4, 9]);
        c.check(name, move |g| {
            let x = g.param(x);
            op(g, x)
        });
    }
}

#[test]
fn layer_norm_and_fused_relu() {
    for relu in [false, true] {
        let mut c = Case::new(8);
        let (x, gamma, beta) = (c.param("x", &[3, 10]), c.param("gamma", &[10]), c.param("beta", &[10]));
        c.check(&format!("layer_norm relu={relu}"), move |g| {
            let (x, gamma, beta) = (g.param(x), g.param(gamma), g.param(beta));
            if relu { g.layer_norm_relu(x, gamma, beta, 1e-5) } else { g.layer_norm(x, gamma, beta, 1e-5) }
        });
    }
}

#[test]
fn gather_cols_and_dueling() {
    let mut c = Case::new(9);
    let x = c.param("x", &[4, 6]);
    c.check("gather_cols", move |g| {
        let x = g.param(x);
        g.gather_cols(x, &[5, 0, 2, 2])
    });
    let mut c = Case::new(10);
    let (v, a) = (c.param("v", &[3, 1]), c.param("a", &[3, 4]));
    c.check("dueling", move |g| {
        let (v, a) = (g.param(v), g.param(a));
        g.dueling(v, a)
    });
}

#[test]
fn losses_with_and_without_weights() {
    for weighted in [false, true] {
        let mut c = Case::new(11);
        let p = c.param("p", &[4, 3]);
        let target = c.data(12);
        let probs: Vec<f32> = target.iter().map(|t| t.abs()).collect();
        let weights = [0.5f32, 2.0, 1.0, 0.25];
        let w = weighted.then_some(&weights[..]);
        let name = |n: &str| format!("{n} weighted={weighted}");
        let (t1, t2, t3) = (target.clone(), target.clone(), probs.clone());
        let cases: Vec<(String, Box<LossFn<'_>>)> = vec![
            (
                name("mse"),
                Box::new(move |g| {
                    let p = g.param(p);
                    g.mse(p, &t1, w)
                }),
            ),
            (
                name("huber"),
                Box::new(move |g| {
                    let p = g.param(p);
                    let scaled = g.scale(p, 2.0)?;
                    g.huber(scaled, &t2, 1.0, w)
                }),
            ),
            (
                name("bce_with_logits"),
                Box::new(move |g| {
                    let p = g.param(p);
                    g.bce_with_logits(p, &t3, w)
                }),
            ),
            (
                name("cross_entropy"),
                Box::new(move |g| {
                    let p = g.param(p);
                    g.cross_entropy(p, &[2, 0, 1, 1], w)
                }),
            ),
            (
                name("soft_cross_entropy"),
                Box::new(move |g| {
                    let p = g.param(p);
                    g.soft_cross_entropy(p, &probs, w)
                }),
            ),
        ];
        for (n, f) in cases {
            let mut c = Case::new(12);
            c.params = {
                let mut fresh = Params::new();
                let v = c.data(12);
                fresh.add("p", &[4, 3], |d| d.copy_from_slice(&v)).unwrap();
                fresh
            };
            c.check(&n, f);
        }
    }
}

/// y = x³ elementwise, as an op defined outside the crate.
struct Cube;

impl CustomOp for Cube {
    fn name(&self) -> &'static str {
        "cube"
    }
    fn output_shape(&self, inputs: &[Shape]) -> Result<Shape> {
        Ok(inputs[0])
    }
    fn forward(&self, inputs: &[&[f32]], _: &[Shape], output: &mut [f32], _: &mut [f32]) {
        output.iter_mut().zip(inputs[0]).for_each(|(y, &x)| *y = x * x * x);
    }
    fn backward(&self, inputs: &[&[f32]], _: &[Shape], _: &[f32], _: &[f32], dy: &[f32], dx: &mut [&mut [f32]]) {
        for ((d, &x), &g) in dx[0].iter_mut().zip(inputs[0]).zip(dy) {
            *d += 3.0 * x * x * g;
        }
    }
}

#[test]
fn custom_ops_join_the_tape() {
    let mut params = Params::new();
    let x = params.add("x", &[2, 3], |v| v.copy_from_slice(&[0.5, -1.0, 2.0, 0.1, 0.3, -0.7])).unwrap();
    let mut tape = Tape::new();
    let cube = tape.register(Box::new(Cube));
    params.zero_grads();
    {
        let mut g = tape.graph(&mut params);
        let xv = g.param(x);
        let y = g.custom(cube, &[xv]).unwrap();
        let loss = g.sum(y).unwrap();
        g.backward(loss).unwrap();
    }
    let expected: Vec<f32> = [0.5f32, -1.0, 2.0, 0.1, 0.3, -0.7].iter().map(|x| 3.0 * x * x).collect();
    assert_eq!(params.grad(x), &expected[..]);
}
