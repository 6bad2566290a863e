"""A trial written for NNI: the same file runs under NNI and under nni-osgi.

It "trains" a toy model for five epochs of a second each (a closed-form curve, no data set needed, slow
enough to be watched in the web UI) and reports
the accuracy after each epoch and at the end.
"""
import math
import time

import nni


def accuracy(params, epoch):
    lr = params['learning_rate']
    # best near lr = 0.01, momentum = 0.9, two hidden layers
    quality = math.exp(-(math.log10(lr) + 2) ** 2) * (1 - abs(params['momentum'] - 0.9)) \
        * (1 - 0.1 * abs(params['hidden_layers'] - 2))
    return round(quality * (1 - math.exp(-(epoch + 1) / 2)), 4)


def main():
    params = nni.get_next_parameter()
    print('parameters:', params)
    for epoch in range(5):
        time.sleep(1.0)
        nni.report_intermediate_result(accuracy(params, epoch))
    final = accuracy(params, 4)
    print('final accuracy:', final)
    nni.report_final_result(final)


if __name__ == '__main__':
    main()
