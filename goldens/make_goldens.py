"""Writes the PyTorch golden fixtures the Rust tests compare against.

Run once, from this folder, with the versions goldens/README.md names:

    python make_goldens.py

Every fixture is a safetensors file of float32 tensors. Parameters are
named as minnow names them, under a prefix: `init.` (the values both sides
start from), `grad.` (their gradients), `after.` (after the optimiser
step). The metadata records the hyperparameters and the torch version.
"""

import torch
import torch.nn.functional as F
from safetensors.torch import save_file

torch.manual_seed(0)
torch.set_default_dtype(torch.float32)


def save(path, tensors, **meta):
    meta = {k: str(v) for k, v in meta.items()}
    meta["torch"] = torch.__version__
    save_file({k: v.detach().contiguous().float() for k, v in tensors.items()}, path, metadata=meta)
    print(path, ", ".join(f"{k} {list(v.shape)}" for k, v in tensors.items()))


def dqn_step():
    """One DQN update: Q(s, a) of an MLP (4 -> 16 -> 16 -> 3, ReLU), the
    target r + gamma (1 - done) max_a' Q_target(s', a') from a second
    network, Huber loss (delta 1, mean), backward, one Adam step."""
    batch, gamma, lr, delta = 8, 0.9, 1e-3, 1.0

    def net():
        return torch.nn.ModuleDict(
            {"0": torch.nn.Linear(4, 16), "1": torch.nn.Linear(16, 16), "head": torch.nn.Linear(16, 3)}
        )

    def forward(q, x):
        return q["head"](F.relu(q["1"](F.relu(q["0"](x)))))

    online, target = net(), net()
    obs, next_obs = torch.randn(batch, 4), torch.randn(batch, 4)
    actions = torch.randint(0, 3, (batch,))
    # Rewards large enough that some errors exceed delta (both Huber branches).
    rewards = 2.0 * torch.randn(batch)
    dones = (torch.rand(batch) < 0.25).float()
    init = {f"init.q.{k}": v.clone() for k, v in online.state_dict().items()}
    with torch.no_grad():
        y = rewards + gamma * (1.0 - dones) * forward(target, next_obs).max(dim=1).values
    q = forward(online, obs)
    q_taken = q.gather(1, actions[:, None]).squeeze(1)
    loss = F.huber_loss(q_taken, y, delta=delta)
    adam = torch.optim.Adam(online.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8)
    adam.zero_grad()
    loss.backward()
    grads = {f"grad.q.{k}": p.grad.clone() for k, p in online.named_parameters()}
    adam.step()
    after = {f"after.q.{k}": v.clone() for k, v in online.state_dict().items()}
    tensors = {
        "obs": obs,
        "actions": actions.float(),
        "rewards": rewards,
        "dones": dones,
        "next_obs": next_obs,
        "q": q,
        "targets": y,
        "loss": loss.reshape(1),
        **init,
        **{f"target.q.{k}": v for k, v in target.state_dict().items()},
        **grads,
        **after,
    }
    save("dqn_step.safetensors", tensors, gamma=gamma, lr=lr, huber_delta=delta)


def lstm():
    """An LSTM layer (batch-first, zero initial state) over x [3, 5, 4]
    with hidden size 6: every step's hidden state, and the gradients of
    every parameter for loss = mean((out - target)^2)."""
    layer = torch.nn.LSTM(4, 6, batch_first=True)
    x = torch.randn(3, 5, 4)
    target = torch.randn(3, 5, 6)
    init = {f"init.lstm.{k}": v.clone() for k, v in layer.state_dict().items()}
    out, _ = layer(x)
    loss = F.mse_loss(out, target)
    loss.backward()
    grads = {f"grad.lstm.{k}": p.grad for k, p in layer.named_parameters()}
    save("lstm.safetensors", {"x": x, "target": target, "out": out, "loss": loss.reshape(1), **init, **grads})


def conv2d():
    """Two Conv2d layers' forward and backward on NCHW input: `plain`
    (3 -> 4 channels, 3x3, stride 1, no padding) and `strided` (the same
    with stride 2, padding 1), each with loss = mean((out - target)^2):
    outputs, and the gradients of the kernels, the bias and the input."""
    tensors = {}
    for name, stride, padding in [("plain", 1, 0), ("strided", 2, 1)]:
        conv = torch.nn.Conv2d(3, 4, 3, stride=stride, padding=padding)
        x = torch.randn(2, 3, 7, 7, requires_grad=True)
        out = conv(x)
        target = torch.randn_like(out)
        loss = F.mse_loss(out, target)
        loss.backward()
        tensors.update(
            {
                f"{name}.x": x,
                f"{name}.target": target,
                f"{name}.out": out,
                f"{name}.loss": loss.reshape(1),
                f"{name}.grad_x": x.grad,
                f"{name}.init.conv.weight": conv.weight,
                f"{name}.init.conv.bias": conv.bias,
                f"{name}.grad.conv.weight": conv.weight.grad,
                f"{name}.grad.conv.bias": conv.bias.grad,
            }
        )
    save("conv2d.safetensors", tensors, plain="stride 1 padding 0", strided="stride 2 padding 1")


if __name__ == "__main__":
    dqn_step()
    lstm()
    conv2d()
