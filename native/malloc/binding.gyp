{
  "targets": [
    {
      "target_name": "malloc",
      "sources": ["malloc.c"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
