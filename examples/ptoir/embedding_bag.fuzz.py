"""Buffers of embedding_bag.pto beyond what ptogpu reads from the function: the pair its campaigns
compare by default (A2/A3 and A5 both lower pto.mgather to MGATHER's Row form; the simulator's
plain MGATHER is Elem, see docs/ptoir.md)."""
FUZZ = dict(pair="a2a3:a5")
