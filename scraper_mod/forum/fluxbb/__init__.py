"""FluxBB 1.5 (the FluxBB_by_Visman fork, 1.5.11): addresses (links.py), pages (parse.py) and
the ``Board`` (board.py)."""
