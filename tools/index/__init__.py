"""The local index: keyword search (``bm25``), sentence vectors in Chroma (``dense_store``, ``embed_cache``), both
together (``local``), its build (``build``), the LangChain search tools and rank fusion (``search``) and the search of
the user's library (``library_search``)."""
