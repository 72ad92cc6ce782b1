//! Layer structure: PyTorch layouts, parameter counts and names, heads.

use minnow_nn::{DuelingHeadConfig, Forward, Module, Params, PolicyValueNetConfig, Tape};
use rand::SeedableRng;

#[test]
fn the_alphazero_network_has_283477_parameters() {
    let mut params = Params::new();
    let net = PolicyValueNetConfig { inputs: 198, width: 140, blocks: 4, policy: 676 }
        .init(&mut params, "az", &mut rand_pcg::Pcg64Mcg::seed_from_u64(1))
        .unwrap();
    assert_eq!(params.numel(), 283_477);
    assert_eq!(net.param_ids().len(), params.len());
    assert_eq!(params.shape(params.find("az.stem.weight").unwrap()).dims(), &[140, 198]);
    assert!(params.find("az.block3.norm2.bias").is_some());

    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let x = g.input(&[2, 198], &[0.5; 396]).unwrap();
    let (logits, value) = net.forward(&mut g, x).unwrap();
    assert_eq!(g.shape(logits).dims(), &[2, 676]);
    assert!(g.value(value).iter().all(|v| v.abs() <= 1.0));
}

#[test]
fn dueling_q_values_have_zero_mean_advantage() {
    let mut params = Params::new();
    let head = DuelingHeadConfig { inputs: 3, actions: 4 }
        .init(&mut params, "head", &mut rand_pcg::Pcg64Mcg::seed_from_u64(3))
        .unwrap();
    let mut tape = Tape::new();
    let mut g = tape.inference(&params);
    let h = g.input(&[2, 3], &[0.1, -0.2, 0.3, 1.0, 0.5, -1.0]).unwrap();
    let q = head.forward(&mut g, h).unwrap();
    let v = head.value.forward(&mut g, h).unwrap();
    for (row, &value) in g.value(q).chunks(4).zip(g.value(v)) {
        // mean_j q = V + mean A - mean A = V
        let mean: f32 = row.iter().sum::<f32>() / 4.0;
        assert!((mean - value).abs() < 1e-5, "{mean} vs {value}");
    }
}
