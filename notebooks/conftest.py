# nbval starts each notebook's kernel in the notebook's folder, so relative data paths
# (../data) resolve. Do not chdir here: the sanitize file in pyproject's addopts
# (notebooks/nbval_sanitize.cfg) is opened relative to the directory pytest runs from.
import matplotlib

matplotlib.use("Agg")
