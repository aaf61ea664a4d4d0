"""The five articles whose worked examples the lessons reproduce, cited once.

Docstrings across rankkit quote their numbers (never their text) and cite them by the
short names below, in italics (``*Wang Shusen's slides*``), pointing here by name only:
the engine never imports this module. ``SOURCES`` maps each short name to its full
citation. The notebooks reproduce every worked example, and
``notebooks/08_source_checklist.ipynb`` checks all 54 of their numbers.

- *the guide to ranking metrics*: 全面指南:排名评估指标 ("A comprehensive guide: ranking
  evaluation metrics"), an anonymous Chinese translation (translator, date and address not
  given) of V. Efimov, "Comprehensive Guide to Ranking Evaluation Metrics", Towards Data
  Science, July 2023,
  https://towardsdatascience.com/comprehensive-guide-to-ranking-evaluation-metrics-7d10382c1025;
  it follows Ilya Markov's lecture "Information retrieval, offline evaluation" (date and
  address not known).
- *abs_zero's article*: abs_zero, 与你生活密切相关的排序算法的评估指标 ("Evaluation metrics
  of the ranking algorithms in your daily life"), column AI派, Tencent Cloud developer
  community (https://cloud.tencent.com/developer), 2018-12-05; first published on the
  WeChat account AI派, 2018-10-29.
- *Jason's notes on AP*: Jason, notes on average precision and (mean) reciprocal rank, blog
  "The Dance of Disorder (Fluctuations of Entropy)", PIXNET (痞客邦); title, date and
  address not given. Its AP part follows M. Taifi, "MRR vs MAP vs NDCG: Rank-Aware
  Evaluation Metrics And When To Use Them", The Startup (Medium), 2019,
  https://medium.com/swlh/rank-aware-recsys-evaluation-metrics-5191bba16832.
- *Wang Shusen's slides*: Wang Shusen (王树森), 相关性的评价指标 ("Evaluation metrics of
  relevance"), lecture slides of the course 搜索引擎技术 ("Search engine technology"), 2024,
  https://github.com/wangshusen/SearchEngine (Slides/02_Rel_02.pdf).
- *the NDCG article*: Ranking算法评估指标:NDCG ("Evaluation metrics of ranking algorithms:
  NDCG"), a Chinese blog article whose copy names neither author, date nor address; its
  worked example ranks lipsticks by two algorithms, A and B.
"""

from __future__ import annotations

__all__ = ["SOURCES"]

#: short name (as cited in docstrings) -> the paragraph of this module's docstring citing it
SOURCES: dict[str, str] = {
    " ".join(item.split(": ", 1)[0].strip("*- \n").split()): " ".join(item.split(": ", 1)[1].split())
    for item in __doc__.split("\n- ")[1:]
}
