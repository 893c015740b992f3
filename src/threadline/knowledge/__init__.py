"""The knowledge base: document conversion and chunking, embeddings, the vector engines."""
