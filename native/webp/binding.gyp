{
  "targets": [
    {
      "target_name": "webp",
      "sources": ["webp.c"],
      "cflags": ["-O2", "-Wall"],
      "libraries": ["-lwebp"]
    }
  ]
}
