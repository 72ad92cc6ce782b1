#!/usr/bin/env python3
"""`dqn_step/cube` and `dqn_step/2048` (docs/ANCHORS.md) in JAX or PyTorch.

One DQN training step: forward the online MLP on states and gather Q at
the actions taken; forward the target MLP (same shape, separate params, no
gradient) on next states; target = r + 0.99 (1 - done) max Q'; Huber loss
(smooth L1, delta 1), mean; backward; Adam (lr 1e-3, eps 1e-8) step.

  --framework jax            the whole step under jax.jit (optax Adam),
                             params and optimiser state donated
  --framework torch          PyTorch eager, torch.optim.Adam (default foreach)
  --framework torch-fused    PyTorch eager, torch.optim.Adam(fused=True)
  --framework torch-compile  torch.compile (inductor CPU) on the loss function
                             (forward, target, Huber; its backward is AOT-
                             compiled) and on the Adam step (foreach Adam),
                             as PyTorch's tutorials do it

Thread count and pinning come from the environment: see README.md.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

from _common import filled, jax_thread_check, measure, report, torch_default_linear  # noqa: E402

WORKLOADS = {
    "cube": dict(sizes=[144, 128, 64, 6], batch=64, params=27_206),
    "2048": dict(sizes=[16, 64, 64, 4], batch=32, params=5_508),
}
GAMMA, LR, EPS = 0.99, 1e-3, 1e-8


def inputs(sizes, batch):
    """The same batch as minnow's benchmark (benches/src/workloads/dqn.rs)."""
    n_in, n_act = sizes[0], sizes[-1]
    states = np.abs(filled(batch * n_in, 11)).reshape(batch, n_in)
    next_states = np.abs(filled(batch * n_in, 12)).reshape(batch, n_in)
    actions = (np.arange(batch) % n_act).astype(np.int32)
    rewards = filled(batch, 13)
    dones = (np.arange(batch) % 7 == 0).astype(np.float32)
    return states, next_states, actions, rewards, dones


def run_jax(name, cfg, threads):
    jax_thread_check(threads)
    import jax
    import jax.numpy as jnp
    import optax

    sizes, batch = cfg["sizes"], cfg["batch"]
    rng = np.random.default_rng(1)
    online = [tuple(jnp.asarray(t) for t in torch_default_linear(rng, i, o)) for i, o in zip(sizes, sizes[1:])]
    target = [(jnp.array(w), jnp.array(b)) for w, b in online]  # separate buffers, same values
    n_params = sum(w.size + b.size for w, b in online)
    assert n_params == cfg["params"], n_params
    s, ns, a, r, d = (jnp.asarray(t) for t in inputs(sizes, batch))

    def mlp(params, x):
        for i, (w, b) in enumerate(params):
            x = x @ w + b
            if i + 1 < len(params):
                x = jax.nn.relu(x)
        return x

    def loss_fn(params, target_params, s, a, r, d, ns):
        q_next = jax.lax.stop_gradient(mlp(target_params, ns)).max(axis=1)
        y = r + GAMMA * (1.0 - d) * q_next
        q = jnp.take_along_axis(mlp(params, s), a[:, None], axis=1)[:, 0]
        return optax.huber_loss(q, y, delta=1.0).mean()

    opt = optax.adam(LR, eps=EPS)

    def step(params, opt_state, target_params, s, a, r, d, ns):
        loss, grads = jax.value_and_grad(loss_fn)(params, target_params, s, a, r, d, ns)
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    step = jax.jit(step, donate_argnums=(0, 1))
    state = {"p": online, "o": opt.init(online)}

    def call():
        state["p"], state["o"], loss = step(state["p"], state["o"], target, s, a, r, d, ns)
        return loss

    def sync(loss):
        jax.block_until_ready((loss, state["p"], state["o"]))

    res = measure(call, sync)
    report(f"dqn_step/{name}", "jax-jit", threads, res,
           {"jax": jax.__version__, "jaxlib": jax.lib.__version__ if hasattr(jax.lib, "__version__") else None,
            "optax": optax.__version__, "xla_flags": os.environ.get("XLA_FLAGS", ""),
            "final_loss": float(call())})


def run_torch(name, cfg, threads, variant):
    import copy

    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.set_num_threads(threads)
    torch.manual_seed(1)
    sizes, batch = cfg["sizes"], cfg["batch"]
    layers = []
    for i, (fi, fo) in enumerate(zip(sizes, sizes[1:])):
        layers.append(nn.Linear(fi, fo))  # PyTorch default init
        if i + 2 < len(sizes):
            layers.append(nn.ReLU())
    online = nn.Sequential(*layers)
    target = copy.deepcopy(online).requires_grad_(False)
    n_params = sum(p.numel() for p in online.parameters())
    assert n_params == cfg["params"], n_params
    s, ns, a, r, d = (torch.from_numpy(t) for t in inputs(sizes, batch))
    a = a.long()
    opt = torch.optim.Adam(online.parameters(), lr=LR, eps=EPS, fused=(variant == "torch-fused"))

    def loss_fn():
        with torch.no_grad():
            y = r + GAMMA * (1.0 - d) * target(ns).max(dim=1).values
        q = online(s).gather(1, a.unsqueeze(1)).squeeze(1)
        return F.smooth_l1_loss(q, y, beta=1.0)

    def adam_step():
        opt.step()

    if variant == "torch-compile":
        # PyTorch's recommended pattern: compile the loss function (dynamo
        # then AOT-compiles its backward too) and the optimiser step
        # separately. Compiling one function around everything was slower
        # here (dynamo breaks it at zero_grad, backward and inside Adam).
        loss_fn = torch.compile(loss_fn)
        adam_step = torch.compile(adam_step, fullgraph=False)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn()
        loss.backward()
        adam_step()
        return loss
    res = measure(step)
    report(f"dqn_step/{name}", variant, threads, res,
           {"torch": torch.__version__, "final_loss": float(step().detach())})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--framework", required=True, choices=["jax", "torch", "torch-fused", "torch-compile"])
    ap.add_argument("--workload", default="all", choices=["all", *WORKLOADS])
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    names = list(WORKLOADS) if args.workload == "all" else [args.workload]
    for name in names:
        if args.framework == "jax":
            run_jax(name, WORKLOADS[name], args.threads)
        else:
            run_torch(name, WORKLOADS[name], args.threads, args.framework)


if __name__ == "__main__":
    main()
