"""Exports for teaching and papers: animations of every player (:mod:`.animation`, :mod:`.animations`), a figure
pack per page (:mod:`.packs`) and the kaleido renderer they share (:mod:`.render`). The modules are imported one
by one (this package imports none of them), so the CLI loads only what a command needs."""
