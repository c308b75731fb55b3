"""The benchmarks of hippograph, beside the product: they import it, it never imports them.

``hippograph bench locomo | fit | latency | writes | api`` (``hippograph_bench.cli``, added to the
product's CLI through the ``hippograph.commands`` entry point) measure recall quality on the
development sets (``data``, ``locomo``, ``lifecycle``, ``fit``), recall latency on a store of
distinct memories (``texts``, ``store``, ``latency``), the write path (``writes``) and a served API
under load (``server``, ``load``, ``api``); ``metrics`` and ``report`` score and write up, and
``inspection`` and ``two_index`` hold their Cypher. Their dependencies come with the ``bench`` extra.
"""
