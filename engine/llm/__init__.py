"""Language-model providers behind one small protocol (:mod:`engine.llm.base`).

The official SDK types never leave the provider modules of this package.
"""
