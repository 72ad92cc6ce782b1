"""Writes moons.csv: two interleaved half circles, 400 points, seed 0.

Each row: x, y, label (0 upper moon, 1 lower moon), no header. Points are
drawn uniformly along each moon and moved by Gaussian noise (sd 0.15), as
scikit-learn's make_moons does. Standard library only, so the file
reproduces from this script alone: python3 make_moons.py > moons.csv
"""

import math
import random

rng = random.Random(0)
for i in range(400):
    label = i % 2
    t = rng.uniform(0.0, math.pi)
    if label == 0:
        x, y = math.cos(t), math.sin(t)
    else:
        x, y = 1.0 - math.cos(t), 0.5 - math.sin(t)
    x += rng.gauss(0.0, 0.15)
    y += rng.gauss(0.0, 0.15)
    print(f"{x:.4f},{y:.4f},{label}")
