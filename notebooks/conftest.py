# Notebooks run under nbval from this folder, so relative data paths (../data) resolve.
import os
import pathlib

import matplotlib

matplotlib.use("Agg")
os.chdir(pathlib.Path(__file__).parent)
