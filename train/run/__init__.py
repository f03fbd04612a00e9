"""A run's bookkeeping, the same for both trainers: its settings
(``config``: ``RunConfig``; ``config_file``: YAML plus overrides), its
folder and log (``log``), what it records (``recorder``: evaluation,
``best.zip``, ``summary.json``, TensorBoard), ``progress.csv`` and
TensorBoard's writer (``scalars``), what a resume continues and changes
(``resume``), the stop signals (``interrupt``) and writing checkpoints
(``checkpoint``; ``python -m trappola.train.run.checkpoint export SRC DST``)."""
