"""The lab's file formats as players read them: the checkpoint format
(``checkpoint_format``, a MaskablePPO zip with ``trappola_meta.json``), where
a player's network is found (``model_files``), the actor as plain numpy
(``numpy_policy``) and the bounds on what a zip may make a reader
decompress (``zip_members``). Writing checkpoints is ``trappola.train``'s."""
