# the start address of each symbol perf annotate --stdio prints, in its order
s/^ +: [0-9]+ +([0-9a-f]+) <.*>:$/\1/p
