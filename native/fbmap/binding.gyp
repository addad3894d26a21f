{
  "targets": [
    {
      "target_name": "fbmap",
      "sources": ["fbmap.c"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
