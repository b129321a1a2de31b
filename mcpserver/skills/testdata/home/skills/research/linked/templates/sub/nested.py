print("nested")
