print("chatcli")
