"""The double-dummy search (the Cython core) and its queries: solve, make-or-set,
split searches, deal tables, hand analysis, Moon discards. Imports `game` only."""
