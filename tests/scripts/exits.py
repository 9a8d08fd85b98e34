"""Exits with the status given on its command line, after printing its argv."""
import sys

print("argv:", sys.argv[1:])
print("name:", __name__)
sys.exit(int(sys.argv[1]))
