"""phpBB 3.x: its pages, addresses, forms and private messages behind the ``Board``."""
