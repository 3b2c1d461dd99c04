"""Simple Machines Forum 2.1: the second engine behind forum/engine.py's ``Board``.

``parse``: SMF's topic pages, feed entries and PM folders read into forum/model.py's and
forum/pms.py's values; ``board``: ``SmfBoard``, reading and writing through SMF's own forms.
"""
