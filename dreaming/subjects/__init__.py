"""Subject names: their canonical keys and aliases, the words never a subject alone, and
the candidates code proposes.
"""
