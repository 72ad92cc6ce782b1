#!/usr/bin/env python3
"""`az_forward/bB` for B = 1, 8, 64 (docs/ANCHORS.md) in JAX or PyTorch.

x(198) -> Linear(140) -> ReLU; 4 residual blocks, each
y = LN(Linear(ReLU(LN(Linear(x))))), x = ReLU(x + y); policy head
Linear(140 -> 676) -> softmax; value head Linear(140 -> 1) -> tanh.
LayerNorm has its affine weight and bias (eps 1e-5). 283,477 parameters.
Forward only, inference mode.

  --framework jax            forward under jax.jit, params passed as arguments
  --framework torch          PyTorch eager under torch.inference_mode()
  --framework torch-compile  the module under torch.compile (inductor CPU),
                             called under torch.inference_mode()

Thread count and pinning come from the environment: see README.md.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

from _common import filled, jax_thread_check, measure, report, torch_default_linear  # noqa: E402

INPUTS, WIDTH, BLOCKS, POLICY = 198, 140, 4, 676
N_PARAMS = 283_477
LN_EPS = 1e-5
BATCHES = [1, 8, 64]


def board(batch):
    """The same input as minnow's benchmark (benches/src/workloads/az.rs)."""
    return np.abs(filled(batch * INPUTS, 21)).reshape(batch, INPUTS)


def run_jax(batches, threads):
    jax_thread_check(threads)
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(2)

    def lin(i, o):
        w, b = torch_default_linear(rng, i, o)
        return {"w": jnp.asarray(w), "b": jnp.asarray(b)}

    def ln():
        return {"g": jnp.ones(WIDTH, jnp.float32), "b": jnp.zeros(WIDTH, jnp.float32)}

    params = {
        "stem": lin(INPUTS, WIDTH),
        "blocks": [{"l1": lin(WIDTH, WIDTH), "n1": ln(), "l2": lin(WIDTH, WIDTH), "n2": ln()} for _ in range(BLOCKS)],
        "policy": lin(WIDTH, POLICY),
        "value": lin(WIDTH, 1),
    }
    n_params = sum(x.size for x in jax.tree_util.tree_leaves(params))
    assert n_params == N_PARAMS, n_params

    def dense(p, x):
        return x @ p["w"] + p["b"]

    def layer_norm(p, x):
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) * jax.lax.rsqrt(var + LN_EPS) * p["g"] + p["b"]

    @jax.jit
    def forward(params, x):
        x = jax.nn.relu(dense(params["stem"], x))
        for blk in params["blocks"]:
            y = layer_norm(blk["n1"], dense(blk["l1"], x))
            y = layer_norm(blk["n2"], dense(blk["l2"], jax.nn.relu(y)))
            x = jax.nn.relu(x + y)
        policy = jax.nn.softmax(dense(params["policy"], x), axis=-1)
        value = jnp.tanh(dense(params["value"], x))
        return policy, value

    for batch in batches:
        x = jnp.asarray(board(batch))
        res = measure(lambda: forward(params, x), jax.block_until_ready)
        p, v = forward(params, x)
        assert p.shape == (batch, POLICY) and v.shape == (batch, 1)
        assert np.allclose(np.asarray(p).sum(axis=1), 1.0, atol=1e-4)
        report(f"az_forward/b{batch}", "jax-jit", threads, res,
               {"jax": jax.__version__, "xla_flags": os.environ.get("XLA_FLAGS", ""), "n_params": n_params})


def run_torch(batches, threads, variant):
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    torch.manual_seed(2)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.n1 = nn.Linear(WIDTH, WIDTH), nn.LayerNorm(WIDTH, eps=LN_EPS)
            self.l2, self.n2 = nn.Linear(WIDTH, WIDTH), nn.LayerNorm(WIDTH, eps=LN_EPS)

        def forward(self, x):
            y = self.n2(self.l2(torch.relu(self.n1(self.l1(x)))))
            return torch.relu(x + y)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Linear(INPUTS, WIDTH)
            self.blocks = nn.Sequential(*[Block() for _ in range(BLOCKS)])
            self.policy = nn.Linear(WIDTH, POLICY)
            self.value = nn.Linear(WIDTH, 1)

        def forward(self, x):
            x = self.blocks(torch.relu(self.stem(x)))
            return torch.softmax(self.policy(x), dim=-1), torch.tanh(self.value(x))

    net = Net().eval()
    n_params = sum(p.numel() for p in net.parameters())
    assert n_params == N_PARAMS, n_params
    run = torch.compile(net) if variant == "torch-compile" else net
    for batch in batches:
        x = torch.from_numpy(board(batch))

        def call():
            with torch.inference_mode():
                return run(x)

        res = measure(call)
        p, v = call()
        assert p.shape == (batch, POLICY) and v.shape == (batch, 1)
        assert torch.allclose(p.sum(dim=1), torch.ones(batch), atol=1e-4)
        report(f"az_forward/b{batch}", variant, threads, res, {"torch": torch.__version__, "n_params": n_params})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--framework", required=True, choices=["jax", "torch", "torch-compile"])
    ap.add_argument("--batch", type=int, action="append", choices=BATCHES,
                    help="repeatable; default all of 1, 8, 64")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    batches = args.batch or BATCHES
    if args.framework == "jax":
        run_jax(batches, args.threads)
    else:
        run_torch(batches, args.threads, args.framework)


if __name__ == "__main__":
    main()
