{
  "targets": [
    {
      "target_name": "plaintext",
      "sources": ["plaintext.c"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
