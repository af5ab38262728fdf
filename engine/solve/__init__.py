"""Exact solving: the Connect Four solver, opening books and retrograde tables of small games."""
