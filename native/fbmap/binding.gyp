{
  "targets": [
    {
      "target_name": "fbmap",
      "sources": ["fbmap.c"],
      "cflags": ["-O3", "-Wall"]
    }
  ]
}
